"""The MCP server's stdio transport: one JSON-RPC message per line, each line read within
limits, every line that is not a message answered, and the answers written one per line.

Each line is read as JSON within the toolkit's limits (:mod:`exobrain.util.boundedjson`: 64
levels, no ``NaN``, bounded numbers, a line of at most :data:`LINE_LIMIT` bytes) and held to
JSON-RPC 2.0 before the server sees it; what fails is answered as the specification says,
with ``"id": null`` when the id cannot be told:

* a line that is not JSON (or not UTF-8): ``-32700`` parse error;
* JSON that is not one JSON-RPC message — a number, a string, an object without
  ``jsonrpc: "2.0"`` and a ``method`` or a ``result``, a line over the limits — and a batch
  (an array): ``-32600`` invalid request. MCP dropped JSON-RPC batches in its 2025-06-18
  revision (and later revisions keep them out), so a batch is refused whole with one error
  rather than answered item by item; JSON-RPC 2.0 answers an empty batch the same way.

Blank lines are skipped. While it serves, file descriptor 0 reads the null device and 1
writes to stderr, so nothing a tool or a child process prints can corrupt the wire; both are
put back at the end. Plain threads and blocking reads: the transport needs nothing the
standard library lacks, so the server starts with what ``pip install exobrain-skills``
installs and imports little before its first answer.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from exobrain.util import boundedjson

#: The longest line read: far beyond any request of the tools (their arguments are capped
#: at a few kilobytes, and a call over a cap is answered as such, with its id), small enough
#: that a runaway client cannot fill the memory.
LINE_LIMIT = 16 << 20
BATCHES = "batches are not supported (MCP 2025-06-18 and later)"
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
NOT_A_MESSAGE = (
    'invalid request: not a JSON-RPC 2.0 message (jsonrpc must be "2.0", method a string, '
    "params an object)"
)

Message = dict[str, Any]


def classify(line: bytes) -> tuple[Message | None, Message | None]:
    """``(message, None)`` for a line holding one JSON-RPC message, ``(None, error)`` for one
    that must be answered with ``error``, ``(None, None)`` for a blank line."""
    if not line.strip():
        return None, None
    if len(line) > LINE_LIMIT:
        return None, error(INVALID_REQUEST, f"invalid request: a line over {LINE_LIMIT} bytes")
    try:
        data = boundedjson.loads(line)
    except boundedjson.JsonLimitError as exc:
        return None, error(INVALID_REQUEST, f"invalid request: {exc}", _ident_of(line))
    except ValueError:  # (not UTF-8 is a UnicodeDecodeError, a ValueError too)
        return None, error(PARSE_ERROR, "parse error: the line is not JSON")
    if isinstance(data, list):
        return None, error(INVALID_REQUEST, f"invalid request: {BATCHES}")
    if not isinstance(data, dict):
        return None, error(INVALID_REQUEST, "invalid request: not a JSON-RPC message object")
    if not is_message(data):
        return None, error(INVALID_REQUEST, NOT_A_MESSAGE, ident(data))
    return data, None


def is_message(data: Message) -> bool:
    """Whether ``data`` is a JSON-RPC 2.0 request, notification or response as MCP sends
    them (an id is a string or an integer, never null; params, when given, an object)."""
    if data.get("jsonrpc") != "2.0":
        return False
    if "method" in data:
        method, params = data["method"], data.get("params", {})
        has_id = "id" in data
        return (
            isinstance(method, str)
            and isinstance(params, dict)
            and (not has_id or ident(data) is not None)
            and not ({"result", "error"} & data.keys())
        )
    if "id" not in data or ("result" in data) == ("error" in data):
        return False  # a response: exactly one of result and error
    problem = data.get("error")
    return "result" in data or (
        isinstance(problem, dict)
        and isinstance(problem.get("code"), int)
        and isinstance(problem.get("message"), str)
    )


def ident(data: Any) -> int | str | None:
    """The request id of a message object, when it has a valid one."""
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _ident_of(line: bytes) -> int | str | None:
    """The id of a message refused for its nesting or its numbers, when Python's own reader
    can still tell it (JSON nested 200 deep, not 200,000): its error then answers its id."""
    try:
        return ident(json.loads(line))
    except (ValueError, RecursionError):
        return None


def error(code: int, message: str, request: int | str | None = None, data: Any = None) -> Message:
    """A JSON-RPC error answer."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request, "error": body}


def lines(read: Callable[[int], bytes], limit: int = LINE_LIMIT) -> Iterator[bytes]:
    """The lines ``read`` (``os.read`` of a descriptor, or alike) gives until it gives
    nothing, each cut at ``limit + 1`` bytes (the rest of an over-long line is read and
    dropped, never kept). Read a megabyte at a time into one growing buffer, searched only
    where it grew: a line of megabytes costs what reading it does."""
    pending = bytearray()
    dropping = False
    while chunk := read(1 << 20):
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


class Writer:
    """Writes messages to a descriptor, one line each, from any thread (the reader answers
    at once, the worker when a call is done)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def __call__(self, message: Message) -> None:
        try:
            text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
            data = text.encode("utf-8") + b"\n"
        except UnicodeEncodeError:  # a lone surrogate from a file name: escaped, still JSON
            data = json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]


def claim() -> tuple[int, int]:
    """Private copies of fd 0 and 1 for the wire; 0 then reads the null device and 1 goes
    to stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return wire_in, wire_out


def release(wire_in: int, wire_out: int) -> None:
    sys.stdout.flush()
    os.dup2(wire_in, 0)
    os.dup2(wire_out, 1)
    for fd in (wire_in, wire_out):
        os.close(fd)
