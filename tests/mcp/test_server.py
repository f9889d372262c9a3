"""The MCP server: the ``mcp`` package's own client over stdio, and in-process for the details
(:mod:`tests.support.mcp_session`)."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.search.test_substrate import root  # noqa: F401  (the fixture: six skills, a guide)
from tests.support.mcp_session import InProcess


def ledger_lines(repo) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((repo / "signals").glob("*/*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_stdio_client_initialises_lists_searches_discovers_gets_and_records(root):  # noqa: F811
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "exobrain.mcp", "--repo", str(root), "--agent", "claude"],
        env={**os.environ, "EXOBRAIN_SEARCH_BACKGROUND": "0"},
        cwd=str(root),
    )

    async def session_run() -> dict:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                resources = await session.list_resources()
                templates = await session.list_resource_templates()
                found = await session.call_tool("search", {"query": "dock a ligand", "k": 3})
                picked = await session.call_tool("discover", {"task": "dock a ligand"})
                got = await session.call_tool("get", {"ref": "skill:dock-ligands"})
                read_back = await session.read_resource("exobrain://skill/prep-receptor@global")
                used = await session.call_tool("signal", {"kind": "usage", "ref": "dock-ligands"})
                return {
                    "init": init,
                    "tools": tools,
                    "resources": resources,
                    "templates": templates,
                    "found": found,
                    "picked": picked,
                    "got": got,
                    "read": read_back,
                    "used": used,
                }

    out = anyio.run(session_run)
    assert out["init"].server_info.name == "exobrain"
    assert {t.name for t in out["tools"].tools} == {
        "search", "discover", "get", "list", "links", "signals", "signal",
    }  # fmt: skip
    uris = {str(r.uri) for r in out["resources"].resources}
    assert "exobrain://skill/dock-ligands@global" in uris
    assert "exobrain://knowledge/chem/guide@global" in uris
    assert {t.uri_template for t in out["templates"].resource_templates} == {
        "exobrain://skill/{ref}",
        "exobrain://knowledge/{ref}",
        "skill://{+path}",  # the skills extension's files (tests/mcp/test_skills_extension.py)
    }
    for name in ("found", "picked", "got", "used"):
        assert not out[name].is_error, out[name].content
    assert out["found"].structured_content["hits"][0]["ref"] == "skill:dock-ligands@global"
    assert json.loads(out["found"].content[0].text) == out["found"].structured_content
    assert "skill:dock-ligands@global" in [
        s["ref"] for s in out["picked"].structured_content["skills"]
    ]
    assert "Steps for dock-ligands." in out["got"].structured_content["body"]
    assert out["read"].contents[0].text.startswith("---\nname: prep-receptor\n")
    assert out["used"].structured_content["skill"] == "skill:dock-ligands@global"
    [line] = ledger_lines(root)
    assert line["kind"] == "usage" and line["auto"] is True and line["agent"] == "claude"


def call(repo, name: str, arguments: dict, agent: str | None = "codex") -> dict:
    """One tool call in-process (no subprocess: the same session and worker)."""
    return InProcess(repo, agent).call(name, arguments)


def test_a_use_of_a_superseded_skill_counts_for_its_successor(root):  # noqa: F811
    result = call(root, "signal", {"kind": "usage", "ref": "skill:old-docking"})
    assert not result.get("isError"), result["content"]
    [line] = ledger_lines(root)
    assert line["skill"] == "skill:dock-ligands@global"
    assert line["via"] == "skill:old-docking@global"
    assert line["agent"] == "codex"


def test_a_vote_stays_on_the_skill_named(root):  # noqa: F811
    call(root, "signal", {"kind": "vote", "ref": "skill:old-docking", "value": "down"})
    [line] = ledger_lines(root)
    assert line["skill"] == "skill:old-docking@global" and "via" not in line


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("get", {"ref": "skill:nowhere"}, "no visible artifact"),
        ("signal", {"kind": "fund", "ref": "skill:dock-ligands"}, "use one of usage"),
        ("search", {"query": "dock", "k": 0}, "k must be"),
        ("list", {"filter": {"nope": [1]}}, "nope"),
    ],
)
def test_a_bad_call_is_a_tool_error_that_says_why(root, name, arguments, says):  # noqa: F811
    result = call(root, name, arguments)
    assert result["isError"]
    assert says in result["content"][0]["text"]


def test_list_links_and_signals_answer_with_rows(root):  # noqa: F811
    listed = call(root, "list", {"types": ["skill"], "sort": ["name"], "limit": 2})
    assert [r["name"] for r in listed["structuredContent"]["rows"]] == ["bio-only", "dock-ligands"]
    links = call(root, "links", {"ref": "skill:dock-ligands"})["structuredContent"]
    assert {
        "predicate": "supersedes",
        "target": "skill:old-docking",
        "ref": "skill:old-docking@global",
    } in links["outgoing"]
    call(
        root, "signal", {"kind": "calibration", "ref": "dock-ligands", "value": True, "note": "ok"}
    )
    signals = call(root, "signals", {"ref": "skill:dock-ligands"})["structuredContent"]
    assert signals["aggregate"]["calibration"] == {"completed": 1, "outcomes": 1, "rate": 1.0}


def test_one_server_sees_an_edit_made_between_two_calls(root):  # noqa: F811
    """The server keeps the workspace and the index open between calls (exobrain.search.live):
    a skill edited after the first search is found by the second."""
    path = root / "skills/prep-receptor/SKILL.md"

    server = InProcess(root, None)
    before = server.data("search", {"query": "zebrafish"})
    path.write_text(path.read_text().replace("a receptor", "a zebrafish receptor"))
    after = server.data("search", {"query": "zebrafish"})
    assert "skill:prep-receptor@global" not in [h["ref"] for h in before["hits"]]
    assert after["hits"][0]["ref"] == "skill:prep-receptor@global"
