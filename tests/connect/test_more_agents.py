"""connect-agent for the agents added to the table later (issue 34 item 6): each links an
always skill into its own skills folder and writes the optional-skills index where that agent
reads it, and agents whose loaders read each other's folders get each skill once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.agents import get_agent
from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.indexes import GENERATED_MARK
from tests.support.helpers import exobrain, mtimes

OWNED = {"owner": "ann", "force": True}

#: agent → (its project skills folder, the file holding the index, that file's first line)
EXPECTED = {
    "windsurf": (".windsurf/skills", ".windsurf/rules/exobrain-skills.md", "---"),
    "cline": (".cline/skills", ".cline/rules/exobrain-skills.md", GENERATED_MARK),
    "roo": (".roo/skills", ".roo/rules/exobrain-skills.md", GENERATED_MARK),
    "kiro": (".kiro/skills", ".kiro/steering/exobrain-skills.md", "---"),
    "goose": (".goose/skills", ".goose/optional-skills.md", GENERATED_MARK),
    "qwen": (".qwen/skills", ".qwen/optional-skills.md", GENERATED_MARK),
    "droid": (".factory/skills", ".factory/optional-skills.md", GENERATED_MARK),
    "kilo": (".kilo/skills", ".kilo/optional-skills.md", GENERATED_MARK),
    "augment": (".augment/skills", ".augment/optional-skills.md", GENERATED_MARK),
    "qoder": (".qoder/skills", ".qoder/optional-skills.md", GENERATED_MARK),
    "vibe": (".vibe/skills", ".vibe/optional-skills.md", GENERATED_MARK),
    "pi": (".pi/skills", ".pi/optional-skills.md", GENERATED_MARK),
}

#: the frontmatter line that makes the agent load its rules file in every session
FRONT = {"windsurf": "trigger: always_on", "kiro": "inclusion: always"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "tidy", "tier": "always", **OWNED},
                {"name": "hello", "tier": "optional", **OWNED},
            ]
        },
        skills={"global/tidy": None, "global/hello": None},
        connection={"connected_scopes": []},
    )


def connect(root: Path, *args: str) -> str:
    done = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    return done.output


def links(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.name: os.readlink(p) for p in folder.iterdir() if p.is_symlink()}


@pytest.mark.parametrize("agent", sorted(EXPECTED))
def test_each_later_agent_gets_its_always_skill_and_its_index(repo, agent):
    folder, surface, first = EXPECTED[agent]
    connect(repo, agent)
    assert links(repo / folder) == {"tidy": os.path.relpath(repo / "skills/tidy", repo / folder)}
    text = (repo / surface).read_text(encoding="utf-8")
    assert text.splitlines()[0] == first
    assert GENERATED_MARK in text and "| hello |" in text and "skills/hello/SKILL.md" in text
    if agent in FRONT:
        assert text.startswith(f"---\n{FRONT[agent]}\n---\n{GENERATED_MARK}\n")
    # the repository's .gitignore keeps the agent's folders out of git
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text(encoding="utf-8")
    assert f"/{folder.split('/')[0]}/" in ignored.splitlines()
    before = mtimes(repo)
    connect(repo, agent, "--relink")
    assert mtimes(repo) == before  # a second run writes nothing


def test_a_rules_folder_agent_without_user_rules_files_says_where_to_point(repo, isolated_home):
    output = connect(repo, "windsurf", "--user")
    assert (isolated_home / ".codeium/windsurf/skills/tidy").is_symlink()
    index = isolated_home / ".codeium/windsurf/optional-skills.md"
    assert "| hello |" in index.read_text(encoding="utf-8")
    assert "windsurf reads no user-level rules folder connect-agent can write to" in output


def test_user_level_rules_files_go_where_roo_and_kiro_read_them(repo, isolated_home):
    connect(repo, "roo", "--user")
    connect(repo, "kiro", "--user")
    assert "| hello |" in (isolated_home / ".roo/rules/exobrain-skills.md").read_text()
    kiro = (isolated_home / ".kiro/steering/exobrain-skills.md").read_text()
    assert kiro.startswith("---\ninclusion: always\n---\n")
    assert (isolated_home / ".roo/skills/tidy").is_symlink()
    assert (isolated_home / ".kiro/skills/tidy").is_symlink()


def test_vibe_home_moves_vibes_user_folder(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("VIBE_HOME", str(tmp_path / "vh"))
    connect(repo, "vibe", "--user")
    assert (tmp_path / "vh/skills/tidy").is_symlink()


def listed_by(root: Path, agent: str) -> list[str]:
    """Every link in every folder the agent's loader reads (a duplicate is listed twice)."""
    reads = get_agent(agent).folders(root).reads
    return sorted(name for f in reads if f.is_dir() for name in os.listdir(f))


@pytest.mark.parametrize("agent", ["windsurf", "roo", "goose", "kilo", "vibe", "pi"])
def test_an_agent_that_also_reads_agents_skills_lists_codexs_skill_once(repo, agent):
    connect(repo, agent)
    connect(repo, "codex")
    assert links(repo / ".agents/skills").keys() == {"tidy"}
    assert links(repo / EXPECTED[agent][0]) == {}  # moved: it reads Codex's folder too
    assert listed_by(repo, agent) == ["tidy"]
    assert listed_by(repo, "codex") == ["tidy"]


def test_goose_and_augment_share_claudes_folder(repo):
    for agent in ("claude", "goose", "augment"):
        connect(repo, agent)
    assert links(repo / ".claude/skills").keys() == {"tidy"}
    assert listed_by(repo, "goose") == listed_by(repo, "augment") == ["tidy"]
