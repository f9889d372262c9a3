"""MCP's lifecycle over JSON-RPC, both protocol eras, with no MCP package: what a
:class:`Session` answers itself and how it hands every other request to the server's methods.

A connection speaks one of two eras, decided once by the client's first request:

* the **handshake** era (revisions 2024-11-05 to 2025-11-25): ``initialize`` negotiates the
  revision (the client's when this server knows it, else the newest it knows) and answers
  with the capabilities, ``notifications/initialized`` follows, ``ping`` answers ``{}``; a
  request before ``initialize`` other than ``ping`` is refused (``-32602``), and so is one
  carrying the 2026-07-28 envelope (``-32600``: the connection already chose its era);
* the **stateless** era (2026-07-28): no handshake; every request carries its revision and
  the client's capabilities in ``params._meta`` (``io.modelcontextprotocol/protocolVersion``,
  ``…/clientCapabilities``), ``server/discover`` answers with the supported revisions and the
  capabilities, and every result carries ``resultType: "complete"`` and the server's
  identity in ``_meta`` (``io.modelcontextprotocol/serverInfo``); a revision this server does
  not serve, or ``initialize``, is ``-32022`` naming the revisions it serves, and ``ping``
  (removed in that revision) is an unknown method.

A client opens the stateless era by sending an enveloped request other than ``initialize``
first (Claude Code probes with ``server/discover``, then falls back to ``initialize`` when a
server does not answer it). Results of list and read methods carry the caching hints the
2026-07-28 revision requires (``ttlMs: 0``: every answer is read fresh, so an edit shows in
the next one; ``cacheScope: "private"``: it is one person's chain for one agent).

The server's own methods (:mod:`exobrain.mcp.server`) answer with a result or a
:class:`Pending` one (work done on the server's worker, answered when it is done); a
:class:`RpcError` they raise is the JSON-RPC error the client gets.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from exobrain.mcp.wire import INVALID_REQUEST, Message, error

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32601, -32602, -32603
UNSUPPORTED_VERSION = -32022
#: The results a client may cache (the 2026-07-28 revision's cacheable ones, and the
#: skills extension's); this server's answers are always fresh and private.
CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "skills/list",
        "skills/get",
    }
)
CACHE = {"ttlMs": 0, "cacheScope": "private"}


class RpcError(Exception):
    """A JSON-RPC error answer (code, message, optional data) to the request at hand."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class Pending:
    """A result the worker is still computing: :meth:`then` hands it (or the exception that
    computing it raised) to a callback once, from whichever thread finished it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: tuple[Any, BaseException | None] | None = None
        self._callbacks: list[Callable[[Any, BaseException | None], None]] = []
        self._event = threading.Event()

    def finish(self, value: Any = None, failure: BaseException | None = None) -> None:
        with self._lock:
            self._done = (value, failure)
            callbacks, self._callbacks = self._callbacks, []
        self._event.set()
        for callback in callbacks:
            callback(value, failure)

    def then(self, callback: Callable[[Any, BaseException | None], None]) -> None:
        with self._lock:
            done = self._done
            if done is None:
                self._callbacks.append(callback)
        if done is not None:
            callback(*done)

    def result(self) -> Any:
        """Wait for the value (re-raising what computing it raised)."""
        self._event.wait()
        assert self._done is not None
        value, failure = self._done
        if failure is not None:
            raise failure
        return value


Handler = Callable[[dict[str, Any]], "dict[str, Any] | Pending"]


class Identity:
    """What a session says of the server: its name, version, instructions, capabilities."""

    def __init__(
        self, name: str, version: str, instructions: str, capabilities: dict[str, Any]
    ) -> None:
        self.name, self.version = name, version
        self.instructions, self.capabilities = instructions, capabilities

    @property
    def info(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


class Session:
    """One client connection: its era, its lifecycle, and the count of requests still being
    answered (the server waits for them before it exits)."""

    def __init__(
        self, identity: Identity, methods: dict[str, Handler], send: Callable[[Message], None]
    ) -> None:
        self.identity, self.methods, self._send = identity, methods, send
        self.era: str | None = None  # "handshake" | "modern", set by the first request
        self.version: str | None = None  # the handshake's negotiated revision
        self._busy = 0
        self._idle = threading.Condition()

    def receive(self, message: Message) -> None:
        """Handle one message the wire accepted (a response from the client is ignored:
        this server sends no requests)."""
        method = message.get("method")
        if method is None:
            return
        params: dict[str, Any] = message.get("params") or {}
        if "id" not in message:
            return  # notifications (initialized, cancelled, …) change nothing here
        request = message["id"]
        if self.era is None:
            self.era = "modern" if method != "initialize" and _enveloped(params) else "handshake"
        try:
            answer = self._answer(method, params)
        except RpcError as exc:
            self._send(error(exc.code, exc.message, request, exc.data))
            return
        except Exception as exc:  # a bug of ours: the client reads that, the log the rest
            self._send(error(INTERNAL_ERROR, _internal(exc, method), request))
            return
        if isinstance(answer, Pending):
            self._begin()
            answer.then(lambda value, failure: self._deliver(method, request, value, failure))
        else:
            self._send({"jsonrpc": "2.0", "id": request, "result": self._shaped(method, answer)})

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any] | Pending:
        if self.era == "modern":
            return self._modern(method, params)
        if _enveloped(params) and method != "initialize":
            raise RpcError(
                INVALID_REQUEST,
                "this connection serves the handshake protocol era; requests carrying the "
                "2026-07-28 envelope are not accepted on it",
            )
        if method == "initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        handler = self.methods.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
        if self.version is None:
            raise RpcError(INVALID_PARAMS, f"{method[:64]} before initialize: initialize first")
        return handler(params)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        self.version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        return {
            "protocolVersion": self.version,
            "capabilities": self.identity.capabilities,
            "serverInfo": self.identity.info,
            "instructions": self.identity.instructions,
        }

    def _modern(self, method: str, params: dict[str, Any]) -> dict[str, Any] | Pending:
        meta = params.get("_meta")
        if method == "initialize":
            raise RpcError(
                UNSUPPORTED_VERSION,
                "connection is serving the 2026-07-28 protocol; the initialize handshake is "
                "not accepted",
                {"supported": list(MODERN_VERSIONS), "requested": params.get("protocolVersion")},
            )
        if not (
            isinstance(meta, dict)
            and isinstance(meta.get(VERSION_KEY), str)
            and isinstance(meta.get(CAPABILITIES_KEY), dict)
        ):
            raise RpcError(
                INVALID_PARAMS,
                f"params._meta must be an object carrying the required {VERSION_KEY!r} and "
                f"{CAPABILITIES_KEY!r} envelope keys",
            )
        if meta[VERSION_KEY] not in MODERN_VERSIONS:
            raise RpcError(
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                {"supported": list(MODERN_VERSIONS), "requested": meta[VERSION_KEY][:64]},
            )
        if method == "server/discover":
            return {
                "supportedVersions": list(MODERN_VERSIONS),
                "capabilities": self.identity.capabilities,
                "instructions": self.identity.instructions,
            }
        handler = self.methods.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
        return handler(params)

    def _shaped(self, method: str, result: dict[str, Any]) -> dict[str, Any]:
        """A result as this connection's era writes it (see the module)."""
        if self.era != "modern":
            return result
        shaped = {**CACHE, **result} if method in CACHEABLE else dict(result)
        shaped.setdefault("resultType", "complete")
        meta = shaped.get("_meta")
        shaped["_meta"] = {
            **(meta if isinstance(meta, dict) else {}),
            SERVER_INFO_KEY: self.identity.info,
        }
        return shaped

    def _deliver(
        self, method: str, request: Any, value: Any, failure: BaseException | None
    ) -> None:
        try:
            if isinstance(failure, RpcError):
                self._send(error(failure.code, failure.message, request, failure.data))
            elif failure is not None:
                self._send(error(INTERNAL_ERROR, _internal(failure, method), request))
            else:
                self._send({"jsonrpc": "2.0", "id": request, "result": self._shaped(method, value)})
        finally:
            self._end()

    def _begin(self) -> None:
        with self._idle:
            self._busy += 1

    def _end(self) -> None:
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()

    def drain(self) -> None:
        """Wait until every request received has been answered."""
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0)


def _enveloped(params: dict[str, Any]) -> bool:
    """Whether a request carries the 2026-07-28 per-request envelope."""
    meta = params.get("_meta")
    return isinstance(meta, dict) and VERSION_KEY in meta


def _internal(exc: BaseException, method: str) -> str:
    """The message of an internal error; the exception and its traceback go to stderr."""
    import traceback

    doing = f"answering {method[:64]}"
    print(f"exobrain mcp: internal error while {doing}:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
    return f"internal error while {doing}; the server's log (its stderr) has the details"
