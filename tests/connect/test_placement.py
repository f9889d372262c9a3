"""Each connected agent reads each of its skills once (issue 34 item 1): the placement of links
when several agents whose loaders read each other's folders are connected on one clone."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.agents import get_agent
from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.placement import Reader, place
from tests.support.helpers import exobrain, skill_md

P = Path("/r")
CLAUDE = Reader("claude", P / ".claude/skills", frozenset({P / ".claude/skills"}))
CODEX = Reader("codex", P / ".agents/skills", frozenset({P / ".agents/skills"}))
GEMINI = Reader(
    "gemini", P / ".gemini/skills", frozenset({P / ".gemini/skills", P / ".agents/skills"})
)
COPILOT = Reader(
    "copilot",
    P / ".github/skills",
    frozenset({P / ".github/skills", P / ".claude/skills", P / ".agents/skills"}),
)


def seen(placement, readers, name):
    """How many times each reader lists ``name``."""
    where = placement.folders[name]
    return {r.name: sum(1 for f in where if f in r.reads) for r in readers}


def test_a_skill_for_codex_and_gemini_goes_only_where_both_read_it():
    placed = place({"tidy": {"codex", "gemini"}}, [CLAUDE, CODEX, GEMINI])
    assert placed.folders["tidy"] == (P / ".agents/skills",)
    assert not placed.clashes


def test_each_agent_of_any_combination_reads_its_skills_once():
    readers = [CLAUDE, CODEX, GEMINI, COPILOT]
    for size in range(1, len(readers) + 1):
        for combo in itertools.combinations(readers, size):
            names = {r.name for r in combo}
            placed = place({"tidy": names}, combo)
            counts = seen(placed, combo, "tidy")
            assert min(counts.values()) == 1, names  # everyone has it
            twice = {name for name, n in counts.items() if n > 1}
            assert twice == {a for c in placed.clashes for a in c.twice}, names
            if not {"copilot", "claude", "codex"} <= names:
                assert not twice, names


def test_copilot_with_claude_and_codex_reads_one_skill_twice_and_is_told():
    """Copilot reads .claude/skills and .agents/skills; Claude reads only the first, Codex
    only the second: no placement gives Copilot one copy, so the clash is reported."""
    placed = place({"tidy": {"claude", "codex", "copilot"}}, [CLAUDE, CODEX, COPILOT])
    assert placed.folders["tidy"] == (P / ".claude/skills", P / ".agents/skills")
    assert [c.twice for c in placed.clashes] == [("copilot",)]


def test_a_skill_for_one_agent_stays_out_of_the_folders_others_read():
    placed = place({"only-gemini": {"gemini"}, "only-claude": {"claude"}}, [CLAUDE, CODEX, GEMINI])
    assert placed.folders["only-gemini"] == (P / ".gemini/skills",)
    assert placed.folders["only-claude"] == (P / ".claude/skills",)
    copilot = place({"for-claude": {"claude"}}, [CLAUDE, COPILOT])
    # Copilot reads .claude/skills too: a Claude-only skill cannot hide from it there
    assert copilot.folders["for-claude"] == (P / ".claude/skills",)
    [clash] = copilot.clashes
    assert (clash.name, clash.extra, clash.twice) == ("for-claude", ("copilot",), ())


def test_an_agent_that_must_not_have_it_is_named_when_no_folder_hides_it():
    placed = place({"no-gemini": {"codex"}}, [CODEX, GEMINI])
    assert placed.folders["no-gemini"] == (P / ".agents/skills",)
    [clash] = placed.clashes
    assert clash.extra == ("gemini",) and clash.folder == P / ".agents/skills"


# --- connect-agent on a real clone ---------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    def entry(name, **more):
        return {"name": name, "owner": "al", "tier": "always", "force": True, **more}

    return exobrain(
        tmp_path / "exo",
        registries={
            "global": [
                entry("tidy"),
                entry("gem-only", agent="gemini"),
                entry("no-gemini", skipAgents=["gemini"]),
            ]
        },
        scopes=["people/al"],
        skills={f"global/{n}": skill_md(n) for n in ("tidy", "gem-only", "no-gemini")},
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )


def connect(root: Path, agent: str):
    done = CliRunner().invoke(connect_cmd, [agent, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    return done.output


def links(root: Path, folder: str) -> set[str]:
    path = root / folder
    return {p.name for p in path.iterdir() if p.is_symlink()} if path.is_dir() else set()


def listed_by(root: Path, agent: str) -> list[str]:
    """What the agent's loader lists: every link in every folder it reads (duplicates kept)."""
    folders = get_agent(agent).folders(root)
    return sorted(
        name for folder in folders.reads if folder.is_dir() for name in os.listdir(folder)
    )


@pytest.mark.parametrize("order", [("codex", "gemini"), ("gemini", "codex")])
def test_codex_and_gemini_on_one_clone_list_each_skill_once(repo, order):
    outputs = [connect(repo, agent) for agent in order]
    assert links(repo, ".agents/skills") == {"tidy", "no-gemini"}
    assert links(repo, ".gemini/skills") == {"gem-only"}
    assert listed_by(repo, "codex") == ["no-gemini", "tidy"]
    # no-gemini must not reach Gemini, but Gemini reads Codex's folder: said, not hidden
    assert listed_by(repo, "gemini") == ["gem-only", "no-gemini", "tidy"]
    assert "no-gemini: no folder shows it only to the agents meant to have it" in outputs[-1]
    if order[0] == "gemini":  # Gemini's own copy of tidy moved when Codex came
        assert "relinked gemini as well" in outputs[1]


def test_claude_codex_and_gemini_together_each_list_theirs_once(repo):
    for agent in ("claude", "gemini", "codex"):
        connect(repo, agent)
    assert listed_by(repo, "claude") == ["no-gemini", "tidy"]
    assert listed_by(repo, "codex") == ["no-gemini", "tidy"]
    assert sorted(set(listed_by(repo, "gemini"))) == listed_by(repo, "gemini")
    connect(repo, "claude")  # a relink of one changes nothing of the others
    assert links(repo, ".agents/skills") == {"tidy", "no-gemini"}
    assert links(repo, ".gemini/skills") == {"gem-only"}
