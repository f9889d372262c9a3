"""``skills/list`` with a ``query`` (issue 43 item 4; ext-skills issue 99, shaped as SEP-1821):
the listed skills that fit the query, best first, by the ranker and the relevance floor of
``exobrain search``; nothing that clears the floor is an empty listing that says so; a
client that sends no query gets the whole listing, as plain clients of the extension do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.mcp.arguments import TEXT_MAX
from tests.search.test_substrate import SKILLS
from tests.support.helpers import exobrain, skill_md
from tests.support.mcp_session import InProcess

TASK = "dock a ligand into a receptor pocket"
MORE = {
    "brew-tea": skill_md("brew-tea", "Brew loose-leaf tea at the right temperature."),
    "git-bisect": skill_md("git-bisect", "Find the commit that broke a build with git bisect."),
    # matches the task well, but unlisted: a query narrows the listing, never widens it
    "dock-unlisted": skill_md("dock-unlisted", "Dock ligands into a receptor pocket, quietly."),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    texts = {**SKILLS, **MORE}
    entries = [
        {
            "name": name,
            "owner": "ops",
            "tier": "unlisted" if name == "dock-unlisted" else "optional",
            "force": True,
        }
        for name in texts
    ]
    return exobrain(
        tmp_path_factory.mktemp("query") / "repo",
        {"global": entries},
        skills={f"global/{n}": t for n, t in texts.items()},
    )


@pytest.fixture(scope="module")
def server(repo) -> InProcess:
    return InProcess(repo, None)


def refs(result: dict) -> list[str]:
    return [entry["_meta"]["exobrain/ref"] for entry in result["skills"]]


def test_a_query_lists_the_skills_that_fit_it_best_first(server, repo):
    whole = server.result("skills/list")
    result = server.result("skills/list", {"query": TASK})
    found = refs(result)
    assert found[0] == "skill:dock-ligands@global"
    assert set(found) < set(refs(whole))  # the listing's own skills, fewer of them
    assert "skill:brew-tea@global" not in found and "skill:git-bisect@global" not in found
    assert "skill:dock-unlisted@global" not in found  # not in the listing: not in its filter
    meta = result["_meta"]["exobrain/query"]
    assert meta["query"] == TASK and meta["considered"] == len(refs(whole))
    scores = [meta["scores"][ref] for ref in found]
    assert scores == sorted(scores, reverse=True)
    assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
    done = CliRunner().invoke(main, ["search", TASK, "--json", "--repo", str(repo)])
    assert done.exit_code == 0, done.output
    hits = [h["ref"] for h in json.loads(done.output)["hits"] if h["reach"] == "listed"]
    assert found[0] == hits[0]  # exobrain search ranks the same skill first


def test_a_query_nothing_fits_is_an_empty_listing_that_says_so(server):
    result = server.result("skills/list", {"query": "file the quarterly penguin tax return"})
    assert result["skills"] == []
    meta = result["_meta"]["exobrain/query"]
    assert any(note.startswith("nothing fits:") for note in meta["notes"]), meta


def test_without_a_query_the_listing_is_whole(server):
    listed = refs(server.result("skills/list"))
    # every skill that reaches the agent: not the unlisted one, nor old-docking (superseded)
    expected = {*SKILLS, *MORE} - {"dock-unlisted", "old-docking"}
    assert listed == sorted(f"skill:{name}@global" for name in expected)


@pytest.mark.parametrize(
    ("query", "says"),
    [
        (5, "params.query must be a non-empty string"),
        ("  ", "params.query must be a non-empty string"),
        ("x" * (TEXT_MAX + 1), f"over the {TEXT_MAX} cap"),
    ],
)
def test_a_bad_query_is_refused_saying_why(server, query, says):
    answer = server.request("skills/list", {"query": query})
    assert answer["error"]["code"] == -32602 and says in answer["error"]["message"]


def test_the_query_is_declared_in_the_extensions_settings(server):
    discovered = InProcess(server.exobrain.repo, None, era="modern").result("server/discover")
    assert discovered["capabilities"]["extensions"]["io.modelcontextprotocol/skills"] == {
        "filtering": True
    }
