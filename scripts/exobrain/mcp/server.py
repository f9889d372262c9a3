"""The Model Context Protocol server over stdio (the ``mcp`` package, low-level API).

It only translates: tool calls and resource reads go to :mod:`exobrain.mcp.tools`, whose
answers become JSON text plus ``structured_content``; a domain error (an argument over its
cap among them) becomes a tool error whose text is the message and its fix, so the agent can
act on it. Anything else is an internal error: the agent reads "internal error" and what
was being done, never a Python exception's name or traceback, which go to stderr, the
server's log (with a note of each cache found damaged). The wire itself — lines that are not
messages, batches — is :mod:`exobrain.mcp.wire`'s. The work runs in a worker thread,
one call at a time (the search cache and the encoders are shared), so the event loop keeps
answering pings while a first search loads its encoders; the first ``tools/list`` (what a
client asks right after ``initialize``) starts loading them in the background.

Start-up is what an agent waits for on every session: importing the ``mcp`` package is most
of it, so only its server half is imported (:mod:`exobrain.mcp.lean`) and nothing of the
toolkit beyond the tool table before the first call asks for it.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types

from exobrain.mcp.lean import import_server_modules
from exobrain.mcp.tools import TOOLS, URI_PREFIX, Exobrain
from exobrain.mcp.wire import stdio_transport

import_server_modules()  # the server half only: the package's own import is most of start-up

from mcp.server.lowlevel import Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

NAME = "exobrain"
INSTRUCTIONS = (
    "Skills of this exobrain, as your connection sees them. Before a task, call discover "
    "with the task (or search); read a skill with get; after following one, record it with "
    "signal (kind usage, then calibration true or false with a note)."
)
MARKDOWN = "text/markdown"


def build_server(exobrain: Exobrain) -> Server[Any]:
    """The server for one exobrain (tests drive it in-process with ``mcp.Client``)."""

    async def run(func: Callable[[], Any]) -> Any:
        try:
            return await anyio.to_thread.run_sync(func)
        finally:
            _log_damaged()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        exobrain.warm_up()
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.schema)
                for t in TOOLS.values()
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            data = await run(lambda: exobrain.call(params.name, arguments))
        except Exception as exc:  # the agent gets the message; the server keeps serving
            return _error(exc, f"running the {params.name[:64]} tool")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
            structured_content=data,
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        rows = await _resource(run(exobrain.resources), "listing the resources")
        return types.ListResourcesResult(
            resources=[types.Resource(mime_type=MARKDOWN, **row) for row in rows]
        )

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=f"{URI_PREFIX}{kind}/{{ref}}",
                    name=kind,
                    description=f"A {kind} by reference: {example}",
                    mime_type=MARKDOWN,
                )
                for kind, example in (
                    ("skill", "NAME or NAME@HOME"),
                    ("knowledge", "PATH or PATH@SCOPE (below knowledge/, without .md)"),
                )
            ]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await _resource(run(lambda: exobrain.read(uri)), "reading a resource")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)]
        )

    return Server(
        NAME,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _error(exc: Exception, doing: str) -> types.CallToolResult:
    """The tool error the agent reads for ``exc``."""
    text = _message(exc, doing)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


async def _resource(call: Any, doing: str) -> Any:
    """The answer of a resource handler; a failure is a JSON-RPC error with the same text
    a tool error would have (a domain error: invalid params; anything else: internal)."""
    from exobrain.errors import ExobrainError

    try:
        return await call
    except Exception as exc:
        known = isinstance(exc, (ExobrainError, PermissionError))
        code = types.INVALID_PARAMS if known else types.INTERNAL_ERROR
        raise MCPError(code=code, message=_message(exc, doing)) from None


def _message(exc: Exception, doing: str) -> str:
    """A domain error's message and fix (a PermissionError is one: it names its path), or
    "internal error" and what was being done, the exception itself logged on stderr."""
    from exobrain.errors import ExobrainError, denied

    if isinstance(exc, PermissionError):
        exc = denied(exc)
    if isinstance(exc, ExobrainError):
        return str(exc)
    print(f"exobrain mcp: internal error while {doing}:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
    return f"internal error while {doing}; the server's log (its stderr) has the details"


def _log_damaged() -> None:
    """The caches found damaged by the last call, one line each on the server's log."""
    caches = sys.modules.get("exobrain.caches")
    for note in caches.take_damaged() if caches is not None else ():
        print(f"exobrain mcp: warning: {note}", file=sys.stderr)


def serve(exobrain: Exobrain) -> None:
    """Serve over stdin and stdout until the client closes them."""
    server = build_server(exobrain)

    async def main() -> None:
        async with stdio_transport() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
