"""The MCP server driven in-process: messages in, answers out, the same session, methods and
worker the stdio server runs, without a subprocess (the stdio tests use the ``mcp`` package's
own client for that)."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

from exobrain.mcp.protocol import CAPABILITIES_KEY, VERSION_KEY
from exobrain.mcp.server import session
from exobrain.mcp.worker import Exobrain

#: How long an answer may take before the test says the server hangs (a loaded machine
#: builds an index and loads encoders first): generous, never a measure.
ANSWER_WITHIN = 600
MODERN = {VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: {}}


class InProcess:
    """One session for ``agent`` (None: agent-neutral) on the exobrain at ``repo``, opened
    on the ``initialize`` handshake, or with ``era="modern"`` on the 2026-07-28 envelope."""

    def __init__(self, repo: Path, agent: str | None = "codex", era: str = "handshake") -> None:
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.exobrain = Exobrain(repo, agent)
        self.session = session(self.exobrain, self.answers.put)
        self.era = era
        self.ids = 0
        if era == "handshake":
            init = self.request(
                "initialize",
                {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}},
            )
            assert "result" in init, init

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer (the whole JSON-RPC message) to one request."""
        self.ids += 1
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = MODERN
        self.session.receive({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        answer = self.answers.get(timeout=ANSWER_WITHIN)
        assert answer["id"] == self.ids, answer
        return answer

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.request(method, params)
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result of one tool call (``isError`` set for a tool error)."""
        return self.result("tools/call", {"name": tool, "arguments": arguments})

    def data(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The structured content of a tool call that must succeed."""
        result = self.call(tool, arguments)
        assert not result.get("isError"), result["content"]
        data: dict[str, Any] = result["structuredContent"]
        return data

    def text(self, uri: str) -> str:
        """The text of one resource."""
        [contents] = self.result("resources/read", {"uri": uri})["contents"]
        text: str = contents["text"]
        return text
