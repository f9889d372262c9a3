"""One view behind every method of the MCP server (issue 39, scripts/exobrain/mcp/view.py):
what ``resources/list``, ``skills/list`` and ``discover`` name unasked, what ``search`` and
``list`` show on request, and what ``get``, ``resources/read`` of either scheme and
``skills/get`` read agree, for the server's agent. Each disagreement found on main has its
test: a skill of another person's scope that ``exobrain://`` served while ``skill://``
refused it, and codex-barred skills the ``list`` tool showed while ``get`` refused them.

The repository is the truth repository (one skill of each kind the resolver treats apart,
tests/support/truth_repo.py) plus bob's own scope — a skill and a note of his — and a
shared skill nobody forced (off for alice until she opts in)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.helpers import build_tree, connected, git, skill_md
from tests.support.mcp_session import InProcess
from tests.support.truth_repo import SKILL_OF
from tests.support.truth_repo import build as build_truth

TASK = "groom a zebra herd"
BOB = "skill:bob-zebra@people/bob"
BOB_NOTE = "knowledge:zebra-notes@people/bob"
#: kinds the chain holds that reach codex only on request, by how each stands
ON_REQUEST = {
    "off": "barred",
    "unlisted": "by name",
    "superseded": "barred",
    "draft": "barred",
    "opt-in": "opt in",
}
SKILLS = {**SKILL_OF, "opt-in": "optin-zebra"}


def build(root: Path) -> Path:
    build_truth(root)
    registry = json.loads((root / "skills.json").read_text())
    registry["skills"].append({"name": "optin-zebra", "owner": "ops", "tier": "optional"})
    build_tree(
        root,
        {
            "skills.json": registry,
            "skills/optin-zebra/SKILL.md": skill_md(
                "optin-zebra", "Use optin-zebra to groom a zebra herd.", tags="[stripes]"
            ),
            "people/bob/AGENTS.md": "# bob\n",
            "people/bob/skills.json": {
                "skills": [{"name": "bob-zebra", "owner": "bob", "tier": "optional"}]
            },
            "people/bob/skills/bob-zebra/SKILL.md": skill_md(
                "bob-zebra", "Use bob-zebra to groom a zebra herd.", tags="[stripes]"
            ),
            "people/bob/knowledge/zebra-notes.md": "# Zebra notes\n\nGroom a zebra herd.\n",
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bob's scope, an opt-in skill")
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("one-view") / "repo")


@pytest.fixture(scope="module")
def codex(repo) -> InProcess:
    return InProcess(repo, "codex")


def refused(answer: dict[str, Any]) -> bool:
    return "error" in answer and answer["error"]["code"] == -32602


def names(rows: list[dict[str, Any]], key: str = "name") -> set[str]:
    return {row[key] for row in rows}


# --- another person's scope: in no answer ---------------------------------------------------


def test_another_persons_skill_is_read_by_neither_scheme_nor_listed(codex):
    """On main, exobrain://skill/bob-zebra@people/bob served bob's skill while
    skill://people/bob/bob-zebra/SKILL.md refused it."""
    assert refused(
        codex.request("resources/read", {"uri": "exobrain://skill/bob-zebra@people/bob"})
    )
    uri = "skill://people/bob/bob-zebra/SKILL.md"
    assert refused(codex.request("resources/read", {"uri": uri}))
    assert refused(codex.request("skills/get", {"uri": uri}))
    assert codex.call("get", {"ref": BOB})["isError"]
    everywhere = codex.data("search", {"query": TASK, "k": 50, "all_scopes": True})
    assert BOB not in {hit["ref"] for hit in everywhere["hits"]}
    listed = codex.result("resources/list")["resources"]
    assert "exobrain://skill/bob-zebra@people/bob" not in names(listed, "uri")


def test_another_persons_note_is_neither_read_nor_found(codex):
    assert refused(
        codex.request("resources/read", {"uri": "exobrain://knowledge/zebra-notes@people/bob"})
    )
    found = codex.data(
        "search", {"query": "zebra notes", "types": ["knowledge"], "all_scopes": True}
    )
    assert BOB_NOTE not in {hit["ref"] for hit in found["hits"]}


# --- a skill kept from codex: in no answer ---------------------------------------------------


@pytest.mark.parametrize("kind", ["agent", "skipAgents"])
def test_a_skill_kept_from_codex_is_in_no_answer(codex, kind):
    """On main, the list tool showed these while get refused them."""
    name = SKILLS[kind]
    ref = f"skill:{name}@global"
    rows = codex.data("list", {"types": ["skill"], "limit": 1000})["rows"]
    assert name not in names(rows)
    assert codex.call("get", {"ref": ref})["isError"]
    assert codex.call("links", {"ref": ref})["isError"]
    assert name not in names(codex.data("search", {"query": TASK, "k": 50})["hits"])
    assert refused(codex.request("resources/read", {"uri": f"exobrain://skill/{name}@global"}))
    assert refused(codex.request("skills/get", {"uri": f"skill://global/{name}/SKILL.md"}))
    assert refused(codex.request("resources/read", {"uri": f"skill://global/{name}/SKILL.md"}))


# --- what reaches codex only on request: one answer by every route ---------------------------


@pytest.mark.parametrize("kind", list(ON_REQUEST))
def test_a_skill_shown_on_request_reads_the_same_by_every_route(codex, repo, kind):
    name = SKILLS[kind]
    ref = f"skill:{name}@global"
    text = (repo / f"skills/{name}/SKILL.md").read_text()
    rows = {r["name"]: r for r in codex.data("list", {"types": ["skill"], "limit": 1000})["rows"]}
    hits = {h["name"]: h for h in codex.data("search", {"query": TASK, "k": 50})["hits"]}
    got = codex.data("get", {"ref": ref})
    entry = codex.result("skills/get", {"uri": f"skill://global/{name}/SKILL.md"})["skill"]
    assert rows[name]["reach"] == hits[name]["reach"] == got["reach"] == ON_REQUEST[kind]
    assert entry["_meta"] == {"exobrain/ref": ref, "exobrain/reach": ON_REQUEST[kind]}
    assert codex.text(f"exobrain://skill/{name}@global") == text
    assert codex.text(f"skill://global/{name}/SKILL.md") == text
    unasked = codex.result("resources/list")["resources"]
    assert f"exobrain://skill/{name}@global" not in names(unasked, "uri")
    assert name not in {e["frontmatter"]["name"] for e in codex.result("skills/list")["skills"]}


def test_a_shared_skill_outside_the_chain_reads_the_same_by_every_route(codex, repo):
    ref = "skill:outside-zebra@groups/other"
    text = (repo / "groups/other/skills/outside-zebra/SKILL.md").read_text()
    hits = codex.data("search", {"query": TASK, "k": 50, "all_scopes": True})["hits"]
    assert {h["ref"]: h["reach"] for h in hits}[ref] == "outside"
    assert codex.data("get", {"ref": ref})["reach"] == "outside"
    assert codex.text("exobrain://skill/outside-zebra@groups/other") == text
    assert codex.text("skill://groups/other/outside-zebra/SKILL.md") == text


def test_the_unlisted_skill_is_found_marked_and_read_by_its_bare_name(codex):
    """search consults the registry: it may list an unlisted skill, marked as such; get by
    name reads it; discover, read unasked, never proposes it."""
    hits = {h["name"]: h for h in codex.data("search", {"query": TASK, "k": 50})["hits"]}
    assert (hits["unlisted-zebra"]["reach"], hits["unlisted-zebra"]["tier"]) == (
        "by name",
        "unlisted",
    )
    assert codex.data("get", {"ref": "skill:unlisted-zebra"})["name"] == "unlisted-zebra"
    picks = codex.data("discover", {"task": TASK, "k": 20})["skills"]
    assert "unlisted-zebra" not in names(picks)


def test_every_search_hit_is_read_by_every_route(codex):
    everywhere = codex.data("search", {"query": TASK, "k": 100, "all_scopes": True})["hits"]
    assert len(everywhere) >= 8
    for hit in everywhere:
        ref = hit["ref"]
        name, home = ref.removeprefix("skill:").split("@")
        assert codex.data("get", {"ref": ref})["ref"] == ref
        assert codex.text(f"exobrain://skill/{name}@{home}")
        entry = codex.result("skills/get", {"uri": f"skill://{home}/{name}/SKILL.md"})
        assert entry["skill"]["_meta"]["exobrain/reach"] == hit["reach"]


def test_what_is_read_unasked_is_what_reaches_codex_on_every_list(codex):
    unasked = {
        r["name"]
        for r in codex.result("resources/list")["resources"]
        if r["uri"].startswith("exobrain://skill/")
    }
    extension = {e["_meta"]["exobrain/ref"] for e in codex.result("skills/list")["skills"]}
    listed = {
        r["ref"]
        for r in codex.data("list", {"types": ["skill"], "limit": 1000})["rows"]
        if r["reach"] == "listed"
    }
    picks = {p["ref"] for p in codex.data("discover", {"task": TASK, "k": 20})["skills"]}
    assert (
        unasked
        == extension
        == listed
        == {
            "skill:always-zebra@global",
            "skill:new-zebra@global",
        }
    )
    assert picks <= listed


# --- discover never proposes what the agent must not load unasked -----------------------------

#: what neither MCP discover nor connect-agent's --discover may propose to codex, by kind
NEVER = ["unlisted", "off", "opt-in", "agent", "skipAgents"]


@pytest.fixture(scope="module")
def preloaded(tmp_path_factory) -> str:
    """The discovered-skills file connect-agent codex --discover writes (in a repository of
    its own: connecting writes into it)."""
    root = build(tmp_path_factory.mktemp("preload") / "repo")
    connected(root, "codex", "--discover", TASK)
    return (root / "AGENTS.override.md").read_text().split("Discovered skills", 1)[1]


@pytest.mark.parametrize("kind", NEVER)
def test_mcp_discover_never_proposes_it(codex, kind):
    picks = codex.data("discover", {"task": TASK, "k": 20})["skills"]
    assert "always-zebra" in names(picks)  # what reaches codex is proposed
    assert SKILLS[kind] not in names(picks)


@pytest.mark.parametrize("kind", NEVER)
def test_the_discover_preload_never_proposes_it(preloaded, kind):
    assert "always-zebra" in preloaded
    assert SKILLS[kind] not in preloaded
