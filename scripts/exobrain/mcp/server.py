"""The Model Context Protocol server over stdio (the ``mcp`` package, low-level API).

It only translates: tool calls and resource reads go to :mod:`exobrain.mcp.tools`, whose
answers become JSON text plus ``structured_content``; a domain error (an argument over its
cap among them) becomes a tool error whose text is the message and its fix, so the agent can
act on it. Anything else is an internal error: the agent reads "internal error" and what
was being done, never a Python exception's name or traceback, which go to stderr, the
server's log (with a note of each cache found damaged). MCP's Skills extension (SEP-2640:
``skills/list``, ``skills/get`` and the ``skill://`` files, :mod:`exobrain.mcp.skills`) is
advertised in the capabilities and served beside the tools. The wire itself — lines that are not
messages, batches — is :mod:`exobrain.mcp.wire`'s. The work runs in a worker thread,
one call at a time (the search cache and the encoders are shared), so the event loop keeps
answering pings while a first search loads its encoders; the first ``tools/list`` (what a
client asks right after ``initialize``) starts loading them in the background.

Start-up is what an agent waits for on every session: importing the ``mcp`` package is most
of it, so only its server half is imported (:mod:`exobrain.mcp.lean`) and nothing of the
toolkit beyond the tool table before the first call asks for it.
"""

from __future__ import annotations

import base64
import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types

from exobrain.mcp import skills
from exobrain.mcp.lean import import_server_modules
from exobrain.mcp.resources import URI_PREFIX
from exobrain.mcp.tools import TOOLS, Exobrain
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


class SkillParams(types.RequestParams):
    """What ``skills/list`` (``cursor``) and ``skills/get`` (``uri``) may carry, held by
    :mod:`exobrain.mcp.skills` itself, whose refusals say what is wrong and how to fix it (the
    package's own check of a typed model answers only "Invalid request parameters")."""

    uri: Any = None
    cursor: Any = None


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
            + [
                types.ResourceTemplate(
                    uri_template=f"{skills.SCHEME}{{+path}}",
                    name="skill-file",
                    description="A file of a skill, as the skills extension (SEP-2640) serves "
                    "it: skill://HOME/NAME/SKILL.md and the files its entry lists",
                )
            ]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri.startswith(skills.SCHEME):
            data, mime = await _resource(
                run(lambda: exobrain.on_worker(lambda live: skills.read(live, uri))),
                "reading a skill file",
            )
            return types.ReadResourceResult(contents=[_contents(uri, data, mime)])
        text = await _resource(run(lambda: exobrain.read(uri)), "reading a resource")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)]
        )

    async def list_skills(ctx: Any, params: SkillParams) -> dict[str, Any]:
        from exobrain.util.terminal import safe_text

        result, skipped = await _resource(
            run(lambda: exobrain.on_worker(lambda live: skills.listing(live, params.cursor))),
            "listing the skills",
        )
        for note in skipped:  # the agent's listing goes on without them; the log says why
            print(f"exobrain mcp: warning: skill left out: {safe_text(note)}", file=sys.stderr)
        listed: dict[str, Any] = result
        return listed

    async def get_skill(ctx: Any, params: SkillParams) -> dict[str, Any]:
        found: dict[str, Any] = await _resource(
            run(lambda: exobrain.on_worker(lambda live: skills.get(live, params.uri))),
            "getting a skill",
        )
        return found

    server = Server(
        NAME,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
    server.add_request_handler("skills/list", SkillParams, list_skills)
    server.add_request_handler("skills/get", SkillParams, get_skill)
    server.extensions[skills.EXTENSION] = {}  # no directoryRead: each entry lists every file
    server.middleware.append(_declared_on_handshake)
    return server


async def _declared_on_handshake(ctx: Any, call_next: Any) -> Any:
    """The skills extension declared in an ``initialize`` answer too. The package writes
    ``capabilities.extensions`` (SEP-2133) only for 2026-07-28 connections, which start with
    ``server/discover``; a client still on the ``initialize`` handshake would otherwise never
    see the declaration it must observe before calling ``skills/list``."""
    result = await call_next(ctx)
    capabilities = result.get("capabilities") if isinstance(result, dict) else None
    if ctx.method == "initialize" and isinstance(capabilities, dict):
        declared = capabilities.setdefault("extensions", {})
        if isinstance(declared, dict):
            declared.setdefault(skills.EXTENSION, {})
    return result


def _contents(
    uri: str, data: bytes, mime: str
) -> types.TextResourceContents | types.BlobResourceContents:
    """A skill file as the extension serves it: text when it is UTF-8 (the same bytes again,
    so they match the manifest's digest), base64 otherwise."""
    try:
        return types.TextResourceContents(uri=uri, mime_type=mime, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        blob = base64.b64encode(data).decode("ascii")
        return types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)


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
