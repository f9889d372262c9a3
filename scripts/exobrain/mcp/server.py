"""The Model Context Protocol server over stdio (the ``mcp`` package, low-level API).

It only translates: tool calls and resource reads go to :mod:`exobrain.mcp.tools`, whose
answers become JSON text plus ``structured_content``; a domain error becomes a tool error whose
text is the message and its fix, so the agent can act on it. The work runs in a worker thread,
one call at a time (the search cache and the encoders are shared), so the event loop keeps
answering pings while a first search loads its encoders; the first ``tools/list`` (what a
client asks right after ``initialize``) starts loading them in the background.

Start-up is what an agent waits for on every session: importing the ``mcp`` package is most
of it, so only its server half is imported (:mod:`exobrain.mcp.lean`) and nothing of the
toolkit beyond the tool table before the first call asks for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types

from exobrain.mcp.lean import import_server_modules
from exobrain.mcp.tools import TOOLS, URI_PREFIX, Exobrain

import_server_modules()  # the server half only: the package's own import is most of start-up

from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

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
        return await anyio.to_thread.run_sync(func)

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
            return _error(exc)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
            structured_content=data,
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        rows = await run(exobrain.resources)
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
        text = await run(lambda: exobrain.read(uri))
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


def _error(exc: Exception) -> types.CallToolResult:
    from exobrain.errors import ExobrainError

    text = str(exc) if isinstance(exc, ExobrainError) else f"{type(exc).__name__}: {exc}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def serve(exobrain: Exobrain) -> None:
    """Serve over stdin and stdout until the client closes them."""
    server = build_server(exobrain)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
