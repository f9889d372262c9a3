"""The MCP server's stdio transport: one JSON-RPC message per line, each line read within
limits, and every line that is not a message answered.

The ``mcp`` package's own stdio transport hands a line it cannot read to the server as an
exception, which the server drops: the client waits for an answer that never comes. Here
each line is read as JSON within the toolkit's limits (:mod:`exobrain.util.boundedjson`:
64 levels, no ``NaN``, bounded numbers, a line of at most :data:`LINE_LIMIT` bytes) and held
to JSON-RPC 2.0 before the server sees it, and what fails is answered as the specification
says, with ``"id": null`` when the id cannot be told:

* a line that is not JSON (or not UTF-8): ``-32700`` parse error;
* JSON that is not one JSON-RPC message — a number, a string, an object without
  ``jsonrpc: "2.0"`` and a ``method`` or a ``result``, a line over the limits — and a batch
  (an array): ``-32600`` invalid request. MCP dropped JSON-RPC batches in its 2025-06-18
  revision (and 2025-11-25 keeps them out), so a batch is refused whole with one error
  rather than answered item by item; JSON-RPC 2.0 answers an empty batch the same way.

Blank lines are skipped. While it serves, file descriptor 0 reads the null device and 1
writes to stderr (the package's transport does the same), so nothing a tool or a child
process prints can corrupt the wire; both are put back at the end.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from pydantic import ValidationError

from exobrain.util import boundedjson

#: The longest line read: far beyond any request of the tools (their arguments are capped
#: at a few kilobytes, and a call over a cap is answered as such, with its id), small enough
#: that a runaway client cannot fill the memory.
LINE_LIMIT = 16 << 20
BATCHES = "batches are not supported (MCP 2025-06-18 and later)"


def classify(line: bytes) -> types.JSONRPCMessage | types.JSONRPCError | None:
    """The message a line holds, the error that answers it, or None for a blank line."""
    if not line.strip():
        return None
    if len(line) > LINE_LIMIT:
        return _error(types.INVALID_REQUEST, f"invalid request: a line over {LINE_LIMIT} bytes")
    try:
        data = boundedjson.loads(line)
    except boundedjson.JsonLimitError as exc:
        return _error(types.INVALID_REQUEST, f"invalid request: {exc}", _ident_of(line))
    except ValueError:  # (not UTF-8 is a UnicodeDecodeError, a ValueError too)
        return _error(types.PARSE_ERROR, "parse error: the line is not JSON")
    if isinstance(data, list):
        return _error(types.INVALID_REQUEST, f"invalid request: {BATCHES}")
    if not isinstance(data, dict):
        return _error(types.INVALID_REQUEST, "invalid request: not a JSON-RPC message object")
    try:
        message: types.JSONRPCMessage = types.jsonrpc_message_adapter.validate_python(data)
    except ValidationError:
        return _error(
            types.INVALID_REQUEST,
            'invalid request: not a JSON-RPC 2.0 message (jsonrpc must be "2.0", '
            "method a string, params an object)",
            _ident(data),
        )
    return message


def _ident(data: Any) -> types.RequestId | None:
    """The request id of a message object, when it has a valid one."""
    ident = data.get("id") if isinstance(data, dict) else None
    return ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None


def _ident_of(line: bytes) -> types.RequestId | None:
    """The id of a message refused for its nesting or its numbers, when Python's own reader
    can still tell it (JSON nested 200 deep, not 200,000): its error then answers its id."""
    try:
        return _ident(json.loads(line))
    except (ValueError, RecursionError):
        return None


def _error(code: int, message: str, ident: types.RequestId | None = None) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message)
    )


async def lines(source: Any, limit: int = LINE_LIMIT) -> AsyncIterator[bytes]:
    """The lines of the async binary stream ``source``, each cut at ``limit + 1`` bytes (the
    rest of an over-long line is read and dropped, never kept). Read a megabyte at a time
    into one growing buffer, searched only where it grew: a line of megabytes costs what
    reading it does."""
    pending = bytearray()
    dropping = False
    while chunk := await source.read(1 << 20):  # (unbuffered: what is there, up to that)
        searched = len(pending)
        pending += chunk
        start = 0
        while (end := pending.find(b"\n", max(start, searched))) >= 0:
            if not dropping:
                yield bytes(pending[start:end])
            dropping = False
            start = end + 1
        del pending[:start]
        if dropping:
            pending.clear()
        elif len(pending) > limit:
            yield bytes(pending[: limit + 1])
            pending.clear()
            dropping = True
    if pending.strip() and not dropping:
        yield bytes(pending)


@asynccontextmanager
async def stdio_transport() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[Any]]
]:
    """The streams ``Server.run`` reads messages from and writes answers to, over this
    process's stdin and stdout (see the module)."""
    from mcp.shared.message import SessionMessage

    wire_in, wire_out = _claim()
    reader = anyio.wrap_file(os.fdopen(wire_in, "rb", buffering=0, closefd=False))
    writer = anyio.wrap_file(os.fdopen(wire_out, "wb", closefd=False))
    to_server, from_wire = anyio.create_memory_object_stream[Any](0)
    to_wire, from_server = anyio.create_memory_object_stream[Any](0)

    async def read() -> None:
        async with to_server, to_wire.clone() as answers:
            async for line in lines(reader):
                found = classify(line)
                if isinstance(found, types.JSONRPCError):
                    await answers.send(SessionMessage(found))
                elif found is not None:
                    await to_server.send(SessionMessage(found))

    async def write() -> None:
        async with from_server:
            async for item in from_server:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                await writer.write(text.encode("utf-8") + b"\n")
                await writer.flush()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            yield from_wire, to_wire
    finally:
        _release(wire_in, wire_out)


def _claim() -> tuple[int, int]:
    """Private copies of fd 0 and 1 for the wire; 0 then reads the null device and 1 goes
    to stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return wire_in, wire_out


def _release(wire_in: int, wire_out: int) -> None:
    sys.stdout.flush()
    os.dup2(wire_in, 0)
    os.dup2(wire_out, 1)
    for fd in (wire_in, wire_out):
        os.close(fd)
