"""MCP's Skills extension (SEP-2640) in ``exobrain mcp``: a client lists and gets the skills the
chain shows the server's agent — the frontmatter as SKILL.md has it, every file with the digest
``exobrain lock`` pinned and its size — reads each file back with those bytes, and finds nothing
the chain keeps from that agent; a bad argument is a JSON-RPC error that says what is wrong.

The client is the ``mcp`` package's own (over stdio, on the 2026-07-28 discover path and on the
``initialize`` handshake), sending the two requests the extension defines."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
import yaml
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from pydantic import TypeAdapter

from exobrain.cli.umbrella import main
from tests.security.test_mcp_protocol import Server as LineServer
from tests.support.helpers import build_tree, git, skill_md
from tests.support.mcp_session import InProcess
from tests.support.truth_repo import SKILL_OF
from tests.support.truth_repo import build as build_truth

EXTENSION = "io.modelcontextprotocol/skills"
RICH = """---
name: always-zebra
description: "Use always-zebra to groom a zebra herd: brush, then count."
version: 1.2.0
license: Apache-2.0
created: 2024-01-02
allowed-tools: [Read, Grep]
metadata:
  team: stripes
  reviewed: true
  weight: 1.5
tags: [stripes]
---
# always-zebra

Brush with `scripts/brush.sh`, then read `references/guide.md`.
"""
FILES = {
    "SKILL.md": RICH.encode(),
    "references/guide.md": b"# Guide\r\n\r\nLines end in CRLF here.\r\n",
    "scripts/brush.sh": b"#!/bin/sh\necho brush\n",
    "assets/pattern.bin": bytes(range(256)),  # not UTF-8: served as a blob
}
#: what the codex server lists (the plain cases of the truth repository, and alice's own)
LISTED = {"always-zebra", "new-zebra", "alice-zebra"}
HIDDEN = [kind for kind in SKILL_OF if kind != "unlisted"]


class Params(types.RequestParams):
    uri: Any = None
    cursor: Any = None


class ListSkills(types.Request[Params, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: Params


class GetSkill(types.Request[Params, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: Params


ANSWER = TypeAdapter(dict[str, Any])


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """The truth repository (one skill of each kind the resolver treats apart), with a rich
    always-zebra of four files, alice's own skill (home people/alice), all locked."""
    repo = build_truth(tmp_path_factory.mktemp("skills-ext") / "repo")
    folder = repo / "skills/always-zebra"
    for rel, data in FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    (folder / "references/latest.md").symlink_to("guide.md")  # pinned as its target text
    registry = json.loads((repo / "people/alice/skills.json").read_text())
    registry["skills"].append({"name": "alice-zebra", "owner": "alice", "tier": "optional"})
    build_tree(
        repo,
        {
            "people/alice/skills.json": registry,
            "people/alice/skills/alice-zebra/SKILL.md": skill_md(
                "alice-zebra", "Use alice-zebra to groom a zebra herd.", version="0.1.0"
            ),
        },
    )
    done = CliRunner().invoke(main, ["lock", "--repo", str(repo)])
    assert done.exit_code == 0, done.output
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a rich skill, locked")
    return repo


def stdio(root: Path, agent: str = "codex") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "exobrain.mcp", "--repo", str(root), "--agent", agent],
        env={**os.environ, "EXOBRAIN_SEARCH_BACKGROUND": "0"},
        cwd=str(root),
    )


async def list_skills(client: Client) -> dict[str, Any]:
    return await client.session.send_request(ListSkills(params=Params()), ANSWER)


async def get_skill(client: Client, uri: Any) -> dict[str, Any]:
    return await client.session.send_request(GetSkill(params=Params(uri=uri)), ANSWER)


async def read_bytes(client: Client, uri: str) -> bytes:
    [contents] = (await client.read_resource(uri)).contents
    if isinstance(contents, types.BlobResourceContents):
        return base64.b64decode(contents.blob)
    return contents.text.encode("utf-8")


@pytest.fixture(scope="module", params=["auto", "legacy"])
def session(request, root) -> dict[str, Any]:
    """One stdio session of a codex server: on the 2026-07-28 discover path (auto) and on
    the initialize handshake (legacy), everything the tests below look at."""

    async def run() -> dict[str, Any]:
        async with Client(stdio(root), mode=request.param) as client:
            listed = await list_skills(client)
            by_name = {e["frontmatter"]["name"]: e for e in listed["skills"]}
            rich = by_name["always-zebra"]
            return {
                "mode": request.param,
                "version": client.protocol_version,
                "capabilities": client.server_capabilities,
                "listed": listed,
                "got": {n: await get_skill(client, e["uri"]) for n, e in by_name.items()},
                "unlisted": await get_skill(client, "skill://global/unlisted-zebra/SKILL.md"),
                "bytes": {r["uri"]: await read_bytes(client, r["uri"]) for r in rich["resources"]},
                "tools": {t.name for t in (await client.list_tools()).tools},
                "exobrain": await client.read_resource("exobrain://skill/always-zebra@global"),
            }

    return anyio.run(run)


def entries(session: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["frontmatter"]["name"]: e for e in session["listed"]["skills"]}


def test_the_extension_is_declared_with_resources(session):
    assert session["version"] == {"auto": "2026-07-28", "legacy": "2025-11-25"}[session["mode"]]
    capabilities = session["capabilities"]
    assert capabilities.extensions == {EXTENSION: {"filtering": True}}  # skills/list's query
    assert capabilities.resources is not None  # the extension's files ride on resources


def test_the_list_names_what_the_chain_shows_codex_under_skill_uris(session):
    listed = entries(session)
    assert set(listed) == LISTED
    assert listed["always-zebra"]["uri"] == "skill://global/always-zebra/SKILL.md"
    assert listed["alice-zebra"]["uri"] == "skill://people/alice/alice-zebra/SKILL.md"
    assert listed["alice-zebra"]["_meta"] == {
        "exobrain/ref": "skill:alice-zebra@people/alice",
        "exobrain/reach": "listed",
    }
    assert session["listed"]["ttlMs"] == 0 and session["listed"]["cacheScope"] == "private"
    assert "nextCursor" not in session["listed"]
    for name, entry in listed.items():  # skills/get answers with the same entry
        assert session["got"][name]["skill"] == entry


def test_the_frontmatter_is_the_skill_md_frontmatter_as_written(session):
    written = yaml.safe_load(RICH.split("---\n")[1])
    as_json = json.loads(json.dumps(written, default=str))  # the date as its ISO text
    frontmatter = entries(session)["always-zebra"]["frontmatter"]
    assert frontmatter == as_json
    assert list(frontmatter) == list(written)  # in the author's order
    assert frontmatter["created"] == "2024-01-02" and frontmatter["version"] == "1.2.0"
    assert frontmatter["metadata"] == {"team": "stripes", "reviewed": True, "weight": 1.5}


def test_the_manifest_is_the_lock_and_the_bytes_read_back_match_it(session, root):
    locked = json.loads((root / "skills.lock.json").read_text())["skills"]["always-zebra"]
    resources = entries(session)["always-zebra"]["resources"]
    prefix = "skill://global/always-zebra/"
    manifest = {r["uri"].removeprefix(prefix): r for r in resources}
    assert {rel: r["digest"] for rel, r in manifest.items()} == {
        rel: f"sha256:{digest}" for rel, digest in locked["files"].items()
    }
    assert set(manifest) == {*FILES, "references/latest.md"}
    for rel, data in {**FILES, "references/latest.md": b"guide.md"}.items():
        assert manifest[rel]["size"] == len(data)
        served = session["bytes"][prefix + rel]
        assert served == data
        assert f"sha256:{hashlib.sha256(served).hexdigest()}" == manifest[rel]["digest"]


def test_an_unlisted_skill_answers_by_uri_but_is_not_listed(session):
    assert SKILL_OF["unlisted"] not in entries(session)
    assert session["unlisted"]["skill"]["frontmatter"]["name"] == "unlisted-zebra"


def test_the_tools_and_the_exobrain_resources_still_answer(session):
    assert {"search", "discover", "get", "list", "links", "signals", "signal"} <= session["tools"]
    [contents] = session["exobrain"].contents
    assert contents.text == RICH


# --- what the chain keeps from the agent ------------------------------------------------


def in_process(root: Path, agent: str, *calls: tuple[str, Any]) -> list[Any]:
    """Each call's result, or the JSON-RPC error it was answered with, from one in-process
    session."""
    server = InProcess(root, agent)
    out: list[Any] = []
    for method, argument in calls:
        if method == "list":
            answer = server.request("skills/list")
        elif method == "get":
            answer = server.request("skills/get", {"uri": argument})
        else:
            answer = server.request("resources/read", {"uri": argument})
        out.append(answer.get("result", answer.get("error")))
    return out


def refused(answer: Any) -> bool:
    return "code" in answer and "message" in answer


def home_of(kind: str) -> str:
    return "groups/other" if kind == "out-of-chain" else "global"


def asked_for_codex(root: Path, kind: str) -> list[Any]:
    """The listing, skills/get and the read of SKILL.md for the skill of ``kind``."""
    uri = f"skill://{home_of(kind)}/{SKILL_OF[kind]}/SKILL.md"
    return in_process(root, "codex", ("list", None), ("get", uri), ("read", uri))


@pytest.mark.parametrize("kind", ["agent", "skipAgents"])
def test_a_skill_kept_from_codex_is_neither_listed_nor_gettable_nor_readable(root, kind):
    name = SKILL_OF[kind]
    listed, got, read = asked_for_codex(root, kind)
    assert name not in {e["frontmatter"]["name"] for e in listed["skills"]}
    for answer in (got, read):
        assert refused(answer), answer
        assert answer["code"] == -32602
        assert "no skill" in answer["message"] and "is served at" in answer["message"]


#: how each kind the chain shows codex on request stands (the get tool reads them all)
ON_REQUEST = {
    "off": "barred",
    "superseded": "barred",
    "draft": "barred",
    "out-of-chain": "outside",
}


@pytest.mark.parametrize("kind", list(ON_REQUEST))
def test_a_skill_that_does_not_reach_codex_is_not_listed_but_answers_by_uri(root, kind):
    """Not listed (the listing is read unasked), but served by URI like the get tool and
    the exobrain:// URI serve it (one view: tests/mcp/test_one_view.py), its reach said."""
    name = SKILL_OF[kind]
    listed, got, read = asked_for_codex(root, kind)
    assert name not in {e["frontmatter"]["name"] for e in listed["skills"]}
    assert got["skill"]["frontmatter"]["name"] == name
    assert got["skill"]["_meta"]["exobrain/reach"] == ON_REQUEST[kind]
    assert read["contents"][0]["text"].startswith(f"---\nname: {name}\n")


def test_the_skills_of_claude_are_claudes_not_codexs(root):
    codex, claude = (
        in_process(root, "codex", ("list", None))[0],
        in_process(root, "claude", ("list", None))[0],
    )
    assert "claude-zebra" not in {e["frontmatter"]["name"] for e in codex["skills"]}
    assert "claude-zebra" in {e["frontmatter"]["name"] for e in claude["skills"]}
    assert "skipcodex-zebra" in {e["frontmatter"]["name"] for e in claude["skills"]}


def test_an_edit_shows_in_the_next_answer(tmp_path):
    repo = build_truth(tmp_path / "repo")
    path = repo / "skills/new-zebra/SKILL.md"
    server = InProcess(repo, "codex")
    uri = "skill://global/new-zebra/SKILL.md"
    before = server.result("skills/get", {"uri": uri})
    path.write_text(path.read_text().replace("Zebra care.", "Zebra care, gently."))
    after = server.result("skills/get", {"uri": uri})
    [old], [new] = before["skill"]["resources"], after["skill"]["resources"]
    assert new["digest"] == f"sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}"
    assert new["digest"] != old["digest"] and new["size"] == old["size"] + len(", gently")


def test_a_declaration_changed_between_two_calls_shows_in_the_next_listing(tmp_path):
    """The server keeps the connection's view between calls (exobrain.search.live): alice
    setting always-zebra off for herself takes it off the next listing; asked for by URI it
    answers as what it now is, barred."""
    repo = build_truth(tmp_path / "repo")
    registry = repo / "people/alice/skills.json"
    server = InProcess(repo, "codex")
    before = server.result("skills/list")
    data = json.loads(registry.read_text())
    data["skills"].append({"name": "always-zebra", "from": "global", "tier": "off"})
    registry.write_text(json.dumps(data))
    after = server.result("skills/list")
    got = server.result("skills/get", {"uri": "skill://global/always-zebra/SKILL.md"})
    assert "always-zebra" in {e["frontmatter"]["name"] for e in before["skills"]}
    assert {e["frontmatter"]["name"] for e in after["skills"]} == {"new-zebra"}
    assert got["skill"]["_meta"]["exobrain/reach"] == "barred"


def test_a_skill_the_extension_cannot_carry_is_left_out_and_says_why(tmp_path, capsys):
    repo = build_truth(tmp_path / "repo")
    path = repo / "skills/new-zebra/SKILL.md"
    path.write_text(path.read_text().replace("name: new-zebra", "name: Renamed Zebra"))
    listed, got = in_process(
        repo, "codex", ("list", None), ("get", "skill://global/new-zebra/SKILL.md")
    )
    assert "new-zebra" not in {e["uri"].split("/")[-2] for e in listed["skills"]}
    assert "always-zebra" in {e["frontmatter"]["name"] for e in listed["skills"]}
    assert refused(got) and got["code"] == -32602
    assert "skills/new-zebra/SKILL.md" in got["message"]
    assert "'Renamed Zebra' is not the skill's name 'new-zebra'" in got["message"]
    assert "fix: set name: new-zebra" in got["message"]
    log = capsys.readouterr().err  # the server's log says which skill was left out, and why
    assert "warning: skill left out: skills/new-zebra/SKILL.md: its frontmatter" in log


def test_a_skill_over_the_limits_or_without_a_description_is_left_out(tmp_path):
    repo = build_truth(tmp_path / "repo")
    build_tree(repo / "skills/new-zebra", {f"parts/{n}.txt": "x" for n in range(512)})
    always = repo / "skills/always-zebra/SKILL.md"
    always.write_text(always.read_text().replace("description: Use always-zebra", "summary: Use"))
    listed, big, bare = in_process(
        repo,
        "codex",
        ("list", None),
        ("get", "skill://global/new-zebra/SKILL.md"),
        ("get", "skill://global/always-zebra/SKILL.md"),
    )
    assert listed["skills"] == []
    assert refused(big) and big["code"] == -32602
    assert "513 files" in big["message"] and "limits of 512 files" in big["message"]
    assert refused(bare) and "no description" in bare["message"]


# --- bad arguments, on the wire -----------------------------------------------------------


@pytest.fixture(scope="module")
def line_server(root):
    started = LineServer(root)
    yield started
    log = started.close()
    assert "Traceback" not in log, log


@pytest.mark.parametrize(
    ("method", "params", "says"),
    [
        ("skills/get", None, "skills/get needs params.uri, a string"),
        ("skills/get", {"uri": 5}, "skills/get needs params.uri, a string"),
        ("skills/get", {"uri": "skill://" + "a" * 3000}, "has 3008 characters, over the 2048 cap"),
        ("skills/get", {"uri": "skill://global/nowhere/SKILL.md"}, "no skill is served at"),
        (
            "skills/get",
            {"uri": "skill://global/always-zebra/references/guide.md"},
            "no skill is served at",
        ),
        ("skills/list", {"cursor": "page-2"}, "unknown cursor"),
        (
            "resources/read",
            {"uri": "skill://global/always-zebra/../../skills.json"},
            "no skill file is served at",
        ),
        (
            "resources/read",
            {"uri": "skill://global/always-zebra/references/missing.md"},
            "no skill file is served at",
        ),
    ],
)
def test_a_bad_argument_is_an_invalid_params_error_saying_why(line_server, method, params, says):
    answer = line_server.request(method, params)
    assert answer["error"]["code"] == -32602, answer
    assert says in answer["error"]["message"], answer
    assert "fix:" in answer["error"]["message"] or "cap" in answer["error"]["message"]


def test_the_server_goes_on_serving_after_the_errors(line_server):
    answer = line_server.request("skills/list", {})
    names = {e["frontmatter"]["name"] for e in answer["result"]["skills"]}
    assert "always-zebra" in names  # agent-neutral: no --agent, so claude's are there too
