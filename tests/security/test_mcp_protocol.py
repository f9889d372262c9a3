"""The MCP server against what an agent, or anything on its other end, may send (issue 30):
every line gets its answer — a parse error, an invalid request, a tool error for an argument
over its cap — at once, the server keeps serving, and no answer carries a Python exception's
name or traceback. Each test drives the real server process over its stdin and stdout."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from exobrain.testkit import isolated_env
from tests.support.hostile import watched_scene

#: How long an answer may take before the test says the server hangs (a loaded machine).
ANSWER_WITHIN = 30
#: The caps knowledge/exobrain/search.md gives (exobrain.mcp.arguments holds them).
TEXT_MAX, REF_MAX, NOTE_MAX = 1000, 512, 2000
PYTHON_NAMES = ("Traceback", "Error:", "KeyError", "TypeError", "ValueError", "RecursionError")


class Server:
    """``python -m exobrain.mcp`` on a repository, initialised, spoken to line by line."""

    def __init__(self, root: Path, code: str | None = None) -> None:
        command = [sys.executable, "-m", "exobrain.mcp", "--repo", str(root)]
        if code is not None:  # a fault put into the real process, then its usual start
            command = [sys.executable, "-c", code, "--repo", str(root)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "EXOBRAIN_SEARCH_BACKGROUND": "0"},
        )
        self.ids = 100
        init = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "attacker", "version": "1"},
            },
        )
        assert "result" in init, init
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: object) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self) -> dict:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_WITHIN)
        assert ready, f"no answer within {ANSWER_WITHIN} s"
        text = self.process.stdout.readline().decode()
        assert text, "the server closed its output"
        assert not any(name in text for name in PYTHON_NAMES), text
        return json.loads(text)

    def request(self, method: str, params: dict | None = None) -> dict:
        self.ids += 1
        message: dict = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.answer()
        assert answer["id"] == self.ids, answer
        return answer

    def call(self, tool: str, arguments: dict) -> dict:
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def close(self) -> str:
        """Close stdin (the client goes away): the server ends by itself, exit 0."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(ANSWER_WITHIN)
        assert self.process.stderr is not None
        log = self.process.stderr.read().decode()
        assert code == 0, log
        return log


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One scene and one server for every malformed line and argument of this module: each
    test sends its line and then shows the server still answers, so the same process taking
    them all one after another is the stronger proof (and one start instead of two dozen)."""
    base = tmp_path_factory.mktemp("protocol")
    env = isolated_env(base)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        with watched_scene(base, Path(env["HOME"])) as scene:
            started = Server(scene.root)
            yield scene, started
            log = started.close()
            assert "Traceback" not in log, log
            for path in (scene.home / ".bashrc", scene.victim / "notes.md"):
                assert path.is_file()


@pytest.fixture
def server(shared):
    return shared[1]


def _ping_nested(ident: int, depth: int) -> bytes:
    """A ping whose params hold a list nested ``depth`` deep."""
    head = json.dumps({"jsonrpc": "2.0", "id": ident, "method": "ping"})[:-1]
    return f'{head}, "params": {{"a": {"[" * depth + "]" * depth}}}}}'.encode()


@pytest.mark.parametrize(
    "line, code, ident",
    [
        (b"this is not json", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff"}', -32700, None),
        (b"42", -32600, None),
        (b"{}", -32600, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": 3}', -32600, 5),
        (b'{"jsonrpc": "1.0", "id": "a", "method": "ping"}', -32600, "a"),
        (_ping_nested(7, 200), -32600, 7),
        (_ping_nested(8, 100_000), -32600, None),
        (b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"n": 1e999}}', -32600, 9),
    ],
    ids=[
        "not-json",
        "not-utf8",
        "a-number",
        "empty-object",
        "method-not-text",
        "old-version",
        "nested-200",
        "nested-100000",
        "infinite-number",
    ],
)
def test_a_line_that_is_not_a_message_is_answered_and_the_server_goes_on(server, line, code, ident):
    server.send(line)
    answer = server.answer()
    assert answer == {"jsonrpc": "2.0", "id": ident, "error": answer["error"]}
    assert answer["error"]["code"] == code
    assert answer["error"]["message"].startswith(("parse error", "invalid request"))
    assert server.request("ping")["result"] == {}


@pytest.mark.parametrize("batch", [[], [{"jsonrpc": "2.0", "id": 1, "method": "ping"}] * 2])
def test_a_batch_is_refused_with_one_invalid_request_error(server, batch):
    server.send(batch)
    answer = server.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "batches are not supported" in answer["error"]["message"]
    assert server.request("ping")["result"] == {}  # nothing of the batch was run, or queued


@pytest.mark.parametrize(
    "tool, arguments, says",
    [
        (
            "search",
            {"query": "x" * 5_000_000},
            f"query is 5000000 characters long, at most {TEXT_MAX}",
        ),
        ("discover", {"task": "y" * (TEXT_MAX + 1)}, f"task is {TEXT_MAX + 1} characters long"),
        ("search", {"query": "hello", "k": 10**9}, "k must be a whole number from 1 to 1000"),
        ("search", {"query": "hello", "k": True}, "k must be a whole number, not True"),
        (
            "get",
            {"ref": "skill:" + "a" * 10_000},
            f"ref is 10006 characters long, at most {REF_MAX}",
        ),
        ("get", {}, "the argument ref is required"),
        ("get", {"ref": "skill:hello", "evil": 1}, "unknown argument 'evil'"),
        ("list", {"sort": ["name"] * 50}, "sort holds 50 items, at most 8"),
        (
            "list",
            {"filter": {"in": ["a" * 20_000, {"var": "name"}]}},
            "characters of JSON, at most",
        ),
        ("list", {"limit": "all"}, "limit must be a whole number, not 'all'"),
        ("links", {"ref": "skill:hello", "predicate": "owns"}, "predicate 'owns': use one of"),
        (
            "signal",
            {"kind": "calibration", "ref": "skill:hello", "value": True, "note": "n" * 5000},
            f"note is 5000 characters long, at most {NOTE_MAX}",
        ),
        ("signal", {"kind": "fund", "ref": "skill:hello"}, "kind 'fund': use one of usage"),
    ],
    ids=[
        "5mb-query",
        "long-task",
        "huge-k",
        "bool-k",
        "long-ref",
        "no-ref",
        "unknown",
        "many-sorts",
        "big-filter",
        "text-limit",
        "predicate",
        "long-note",
        "kind",
    ],
)
def test_an_argument_over_its_cap_is_a_tool_error_at_once(shared, tool, arguments, says):
    sandbox, server = shared
    result = server.call(tool, arguments)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith(f"{tool}: ") and says in text, text
    assert len(text) < 400  # the argument is never echoed back whole
    assert not (sandbox.root / "signals").exists()  # nothing recorded
    found = server.call("search", {"query": "hello"})  # and the worker is free
    assert found.get("isError") is not True and found["structuredContent"]["hits"]


FAULT = """
import sys
from exobrain.mcp import resources, tools
from exobrain.mcp.__main__ import main

def broken(live, args):
    return {}["a key nobody has"]

def unreadable(live, uri):
    raise RuntimeError("the disk said no")

tools.TOOLS["get"] = tools.Tool("get", "broken", tools.TOOLS["get"].schema, broken)
resources.read_resource = unreadable
main(sys.argv[1:])
"""


def test_an_internal_error_says_so_and_keeps_its_detail_in_the_log(sandbox):
    started = Server(sandbox.root, FAULT)
    result = started.call("get", {"ref": "skill:hello"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "internal error while running the get tool; the server's log (its stderr) has the details"
    )
    started.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "resources/read",
            "params": {"uri": "exobrain://skill/hello"},
        }
    )
    read = started.answer()
    assert read["id"] == 1 and read["error"]["code"] == -32603
    assert read["error"]["message"].startswith("internal error while reading a resource")
    assert started.request("ping")["result"] == {}
    log = started.close()
    assert "exobrain mcp: internal error while running the get tool:" in log
    assert "KeyError: 'a key nobody has'" in log and "RuntimeError: the disk said no" in log


def test_the_caps_repeat_the_rules_they_stand_for():
    """The server loads its tool table without the toolkit, so the argument checks repeat a
    few of its values: they must stay the values the toolkit itself keeps."""
    from exobrain.mcp import arguments
    from exobrain.search.substrate import PREDICATES
    from exobrain.signals.comments import MAX_COMMENT
    from exobrain.signals.ledger import DIMENSIONS

    assert arguments.DIMENSIONS == DIMENSIONS and arguments.PREDICATES == PREDICATES
    assert arguments.NOTE_MAX == MAX_COMMENT
    assert (TEXT_MAX, REF_MAX, NOTE_MAX) == (
        arguments.TEXT_MAX,
        arguments.REF_MAX,
        arguments.NOTE_MAX,
    )
