"""One truth on every surface: for each surface and each kind of skill the resolver treats
apart (agent, skipAgents, off, unlisted, superseded, draft, out of chain), the surface shows
exactly what the resolver decided for the agent in question (tests/support/truth_repo.py
holds one skill of each kind).

Auto-loaded surfaces (what the agent reads by itself: the linked folder and the index,
``--discover``'s and ``--persona``'s preloads, the MCP server's resources and its discover
tool) list none of them;
on-request surfaces (search, discover, get, list, the MCP tools) list what the person may read
and say how each stands; an MCP server started for codex answers as codex."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.umbrella import main
from tests.support.truth_repo import KINDS, SKILL_OF, build

TASK = "groom a zebra herd"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("truth") / "repo")


def run(root: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, [*args, "--repo", str(root)])
    return done.exit_code, done.stdout


def names_in(text: str) -> set[str]:
    return set(re.findall(r"\b[a-z]+-zebra\b", text))


# --- auto-loaded surfaces ---------------------------------------------------------------


def connected(tmp_path: Path, *extra: str) -> Path:
    root = build(tmp_path / "repo")
    done = CliRunner().invoke(connect_cmd, ["codex", "--repo", str(root), *extra])
    assert done.exit_code == 0, done.output
    return root


def linked_and_indexed(root: Path) -> set[str]:
    linked = {p.name for p in (root / ".agents/skills").iterdir()}
    text = (root / "AGENTS.override.md").read_text()
    return names_in(" ".join(linked)) | names_in(text)


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> set[str]:
    return linked_and_indexed(connected(tmp_path_factory.mktemp("plain")))


@pytest.fixture(scope="module")
def discovered(tmp_path_factory) -> str:
    root = connected(tmp_path_factory.mktemp("discover"), "--discover", TASK)
    return (root / "AGENTS.override.md").read_text()


@pytest.fixture(scope="module")
def persona(tmp_path_factory) -> set[str]:
    root = connected(tmp_path_factory.mktemp("persona"), "--persona", "stripes")
    return {p.name for p in (root / ".agents/skills").iterdir()}


@pytest.fixture(scope="module")
def mcp(repo):
    from exobrain.mcp.worker import Exobrain

    server = Exobrain(repo, agent="codex")
    return {
        "search": server.call("search", {"query": TASK, "k": 20}),
        "search_all": server.call("search", {"query": TASK, "k": 20, "all_scopes": True}),
        "discover": server.call("discover", {"task": TASK, "k": 20}),
        "resources": server.resources(),
    }


def test_the_plain_cases_reach_every_auto_loaded_surface(plain, discovered, persona, mcp):
    assert {"always-zebra", "new-zebra"} <= plain
    assert "new-zebra" in names_in(discovered.split("Discovered skills", 1)[1])
    assert {"always-zebra", "new-zebra"} <= names_in(" ".join(persona))
    assert {"always-zebra", "new-zebra"} <= names_in(json.dumps(mcp["resources"]))


@pytest.mark.parametrize("kind", KINDS)
def test_links_and_index_show_what_resolution_decided(plain, kind):
    assert SKILL_OF[kind] not in plain


@pytest.mark.parametrize("kind", KINDS)
def test_the_discover_preload_lists_none_of_them(discovered, kind):
    assert SKILL_OF[kind] not in names_in(discovered.split("Discovered skills", 1)[1])


@pytest.mark.parametrize("kind", KINDS)
def test_the_persona_preload_links_none_of_them(persona, kind):
    assert SKILL_OF[kind] not in names_in(" ".join(persona))


@pytest.mark.parametrize("kind", KINDS)
def test_the_mcp_resources_for_codex_list_none_of_them(mcp, kind):
    assert SKILL_OF[kind] not in names_in(json.dumps(mcp["resources"]))


# --- on-request surfaces ----------------------------------------------------------------

#: how each kind stands on an agent-neutral surface (the command line): reach, tier
NEUTRAL = {
    "agent": ("listed", "optional"),
    "skipAgents": ("listed", "optional"),
    "off": ("barred", "off"),
    "unlisted": ("by name", "unlisted"),
    "superseded": ("barred", "off"),
    "draft": ("barred", "off"),
}


def hits(data: dict) -> dict[str, dict]:
    return {h["name"]: h for h in data["hits"]}


@pytest.fixture(scope="module")
def searched(repo) -> dict:
    code, out = run(repo, "search", TASK, "--json", "--lexical", "-k", "20")
    assert code == 0, out
    return json.loads(out)


@pytest.mark.parametrize("kind", KINDS)
def test_search_shows_each_kind_as_resolution_decided(repo, searched, kind):
    found = hits(searched)
    name = SKILL_OF[kind]
    if kind == "out-of-chain":
        assert name not in found
        _code, out = run(repo, "search", TASK, "--json", "--lexical", "--all-scopes", "-k", "20")
        hit = hits(json.loads(out))[name]
        assert hit["reach"] == "outside"
        assert hit["opt_in"] == "skills-promote outside-zebra --from groups/other --to optional"
        return
    reach, tier = NEUTRAL[kind]
    assert (found[name]["reach"], found[name]["tier"]) == (reach, tier)
    if kind == "superseded":
        assert found[name]["superseded_by"] == "skill:new-zebra@global"
        order = [h["name"] for h in searched["hits"]]
        assert order.index("new-zebra") < order.index("old-zebra")


@pytest.mark.parametrize("kind", KINDS)
def test_list_rows_say_what_search_says(repo, searched, kind):
    code, out = run(repo, "list", "--json", "--types", "skill")
    assert code == 0, out
    rows = {r["name"]: r for r in json.loads(out)}
    name = SKILL_OF[kind]
    if kind == "out-of-chain":
        assert name not in rows
        return
    assert rows[name]["reach"] == hits(searched)[name]["reach"]


@pytest.mark.parametrize("kind", KINDS)
def test_get_reads_each_of_them(repo, kind):
    home = "groups/other" if kind == "out-of-chain" else "global"
    code, out = run(repo, "get", f"skill:{SKILL_OF[kind]}@{home}", "--json")
    assert code == 0, out
    assert json.loads(out)["name"] == SKILL_OF[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_discover_picks_none_that_is_barred(repo, kind):
    code, out = run(repo, "discover", "--task", TASK, "--json", "-k", "20")
    assert code == 0, out
    picks = {p["name"] for p in json.loads(out)["skills"]}
    barred = {"off", "superseded", "draft", "out-of-chain"}
    assert (SKILL_OF[kind] in picks) is (kind not in barred)


@pytest.mark.parametrize("kind", KINDS)
def test_the_mcp_tools_answer_as_codex(mcp, kind):
    name = SKILL_OF[kind]
    found, everywhere = hits(mcp["search"]), hits(mcp["search_all"])
    picks = {p["name"] for p in mcp["discover"]["skills"]}
    if kind in ("agent", "skipAgents"):  # not codex's: not there at all
        assert name not in found and name not in everywhere and name not in picks
    elif kind == "out-of-chain":
        assert name not in found and everywhere[name]["reach"] == "outside"
        assert name not in picks
    else:
        assert found[name]["reach"] == NEUTRAL[kind][0]
        assert name not in picks  # discover's answer is read unasked: only what reaches codex


def test_get_reads_every_ref_search_all_scopes_lists(repo):
    code, out = run(repo, "search", TASK, "--json", "--lexical", "--all-scopes", "-k", "50")
    refs = [h["ref"] for h in json.loads(out)["hits"]]
    assert len(refs) == 9
    for ref in refs:
        code, out = run(repo, "get", ref, "--json")
        assert code == 0, (ref, out)


def test_discover_names_the_best_match_outside_the_chain(repo):
    _code, out = run(repo, "discover", "--task", "groom an outside zebra herd", "--json")
    notes = " ".join(json.loads(out)["notes"])
    assert "skill:outside-zebra@groups/other" in notes
    assert "skills-promote outside-zebra --from groups/other --to optional" in notes
