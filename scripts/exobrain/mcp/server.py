"""The Model Context Protocol server over stdio: the methods it serves and the loop that reads
the wire, with nothing but the standard library beneath the toolkit.

It only translates: tool calls and resource reads go to :mod:`exobrain.mcp.tools` (run by
:class:`~exobrain.mcp.worker.Exobrain`), whose answers become JSON text plus
``structuredContent``; a domain error (an argument over its cap among them) becomes a tool
error whose text is the message and its fix, so the agent can act on it. Anything else is an
internal error: the agent reads "internal error" and what was being done, never a Python
exception's name or traceback, which go to stderr, the server's log (with a note of each cache
found damaged). MCP's Skills extension (SEP-2640: ``skills/list``, ``skills/get`` and the
``skill://`` files, :mod:`exobrain.mcp.skills`) is declared in the capabilities and served
beside the tools. The lifecycle and the two protocol eras are :mod:`exobrain.mcp.protocol`'s;
the wire — lines that are not messages, batches — is :mod:`exobrain.mcp.wire`'s.

Start-up is what an agent waits for on every session, so nothing of the toolkit beyond the
tool table is imported before a call needs it: the first ``tools/list`` (what a client asks
right after ``initialize``) starts loading the toolkit, the index and the encoders on the
worker, while the reader goes on answering.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from exobrain.mcp import skills
from exobrain.mcp.protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    Handler,
    Identity,
    Pending,
    RpcError,
    Session,
)
from exobrain.mcp.resources import URI_PREFIX
from exobrain.mcp.tools import TOOLS
from exobrain.mcp.wire import Message, Writer, claim, classify, lines, release
from exobrain.mcp.worker import Exobrain

NAME = "exobrain"
INSTRUCTIONS = (
    "Skills of this exobrain, as your connection sees them. Before a task, call discover "
    "with the task (or search); read a skill with get; after following one, record it with "
    "signal (kind usage, then calibration true or false with a note)."
)
MARKDOWN = "text/markdown"
#: What connect-agent asks to check that the server it registers can run: every module the
#: tools import is imported, on the worker (not an MCP method; no client sends it).
CHECK = "exobrain/check"
CAPABILITIES = {
    "tools": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "extensions": {skills.EXTENSION: skills.SETTINGS},
}
TEMPLATES = [
    {
        "uriTemplate": f"{URI_PREFIX}{kind}/{{ref}}",
        "name": kind,
        "description": f"A {kind} by reference: {example}",
        "mimeType": MARKDOWN,
    }
    for kind, example in (
        ("skill", "NAME or NAME@HOME"),
        ("knowledge", "PATH or PATH@SCOPE (below knowledge/, without .md)"),
    )
] + [
    {
        "uriTemplate": f"{skills.SCHEME}{{+path}}",
        "name": "skill-file",
        "description": "A file of a skill, as the skills extension (SEP-2640) serves it: "
        "skill://HOME/NAME/SKILL.md and the files its entry lists",
    }
]


def identity() -> Identity:
    from exobrain import __version__

    return Identity(NAME, __version__, INSTRUCTIONS, CAPABILITIES)


def methods(exobrain: Exobrain) -> dict[str, Handler]:
    """The methods this server serves for ``exobrain``, by name (the lifecycle's are the
    session's own)."""

    def list_tools(params: dict[str, Any]) -> dict[str, Any]:
        exobrain.warm_up()
        tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.schema}
            for t in TOOLS.values()
        ]
        return {"tools": tools}

    def call_tool(params: dict[str, Any]) -> dict[str, Any] | Pending:
        name, arguments = params.get("name"), params.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call needs params.name, the tool's name")
        doing = f"running the {name[:64]} tool"
        try:
            pending = exobrain.submit(name, arguments)
        except Exception as exc:  # refused before it ran: an argument over its cap
            return _tool_error(exc, doing)
        return _then(pending, lambda data: _tool_result(data), lambda exc: _tool_error(exc, doing))

    def list_resources(params: dict[str, Any]) -> Pending:
        from exobrain.mcp.resources import resource_rows

        rows = _request(exobrain.later(resource_rows), "listing the resources")
        return _then(
            rows, lambda found: {"resources": [{**row, "mimeType": MARKDOWN} for row in found]}
        )

    def read_resource(params: dict[str, Any]) -> Pending:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise RpcError(INVALID_PARAMS, "resources/read needs params.uri, a string")
        if uri.startswith(skills.SCHEME):
            done = exobrain.later(lambda live: skills.read(live, uri))
            return _then(
                _request(done, "reading a skill file"),
                lambda read: {"contents": [_contents(uri, *read)]},
            )
        from exobrain.mcp.resources import read_resource as read_markdown

        text = exobrain.later(lambda live: read_markdown(live, uri))
        return _then(
            _request(text, "reading a resource"),
            lambda found: {"contents": [{"uri": uri, "mimeType": MARKDOWN, "text": found}]},
        )

    def list_skills(params: dict[str, Any]) -> Pending:
        from exobrain.mcp.listing import listing

        cursor, query = params.get("cursor"), params.get("query")
        done = exobrain.later(lambda live: listing(live, cursor, query))
        return _then(_request(done, "listing the skills"), _logged)

    def get_skill(params: dict[str, Any]) -> Pending:
        uri = params.get("uri")
        return _request(exobrain.later(lambda live: skills.get(live, uri)), "getting a skill")

    def check(params: dict[str, Any]) -> Pending:
        imported = _request(exobrain.check(), "importing the toolkit")
        return _then(imported, lambda names: {"imported": names, "python": sys.executable})

    return {
        "tools/list": list_tools,
        "tools/call": call_tool,
        "resources/list": list_resources,
        "resources/templates/list": lambda params: {"resourceTemplates": TEMPLATES},
        "resources/read": read_resource,
        "skills/list": list_skills,
        "skills/get": get_skill,
        CHECK: check,
    }


def _then(
    pending: Pending,
    convert: Callable[[Any], Any],
    recover: Callable[[BaseException], Any] | None = None,
) -> Pending:
    """A pending value of ``convert`` of what ``pending`` gives (``recover`` of what it
    raised, when given; else the failure is passed on)."""
    out = Pending()

    def done(value: Any, failure: BaseException | None) -> None:
        _log_damaged()
        try:
            if failure is None:
                out.finish(convert(value))
            elif recover is not None and isinstance(failure, Exception):
                out.finish(recover(failure))
            else:
                out.finish(failure=failure)
        except BaseException as exc:
            out.finish(failure=exc)

    pending.then(done)
    return out


def _request(pending: Pending, doing: str) -> Pending:
    """``pending``, with a failure turned into the JSON-RPC error a client reads: a domain
    error is ``-32602`` with its message and fix; anything else ``-32603`` that says what
    was being done (the exception itself goes to the log)."""

    def error(exc: BaseException) -> Any:
        from exobrain.errors import ExobrainError

        known = isinstance(exc, (ExobrainError, PermissionError))
        raise RpcError(INVALID_PARAMS if known else INTERNAL_ERROR, _message(exc, doing))

    return _then(pending, lambda value: value, error)


def _logged(answer: tuple[dict[str, Any], list[str]]) -> dict[str, Any]:
    """The ``skills/list`` result; why each skill left out was left out, on the log."""
    from exobrain.util.terminal import safe_text

    result, skipped = answer
    for note in skipped:  # the agent's listing goes on without them; the log says why
        print(f"exobrain mcp: warning: skill left out: {safe_text(note)}", file=sys.stderr)
    return result


def _tool_result(data: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(data, ensure_ascii=False)
    return {"content": [{"type": "text", "text": text}], "structuredContent": data}


def _tool_error(exc: BaseException, doing: str) -> dict[str, Any]:
    """The tool error the agent reads for ``exc``."""
    return {"content": [{"type": "text", "text": _message(exc, doing)}], "isError": True}


def _contents(uri: str, data: bytes, mime: str) -> dict[str, str]:
    """A skill file as the extension serves it: text when it is UTF-8 (the same bytes again,
    so they match the manifest's digest), base64 otherwise."""
    try:
        return {"uri": uri, "mimeType": mime, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        blob = base64.b64encode(data).decode("ascii")
        return {"uri": uri, "mimeType": mime, "blob": blob}


def _message(exc: BaseException, doing: str) -> str:
    """A domain error's message and fix (a PermissionError is one: it names its path), or
    "internal error" and what was being done, the exception itself logged on stderr."""
    import traceback

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


def session(exobrain: Exobrain, send: Callable[[Message], None]) -> Session:
    """A session of the server for ``exobrain`` whose answers go to ``send`` (tests drive
    one in-process)."""
    return Session(identity(), methods(exobrain), send)


def serve(exobrain: Exobrain) -> None:
    """Serve over stdin and stdout until the client closes stdin; every request received is
    answered before the server returns."""
    wire_in, wire_out = claim()
    try:
        send = Writer(wire_out)
        connection = session(exobrain, send)
        for line in lines(lambda size: os.read(wire_in, size)):
            message, refusal = classify(line)
            if refusal is not None:
                send(refusal)
            elif message is not None:
                connection.receive(message)
        connection.drain()
    finally:
        release(wire_in, wire_out)
