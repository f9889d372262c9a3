"""connect-agent --persona (persona skills preloaded at tier always) and --discover (a
discovered-skills.md index), remembered per agent in .exobrain.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.indexes import GENERATED_MARK
from tests.support.helpers import connected, exobrain, skill_md

FORCED = {"owner": "ops", "tier": "optional", "force": True}


def sample(tmp_path: Path) -> Path:
    return exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "skeptic-review", **FORCED},
                {"name": "skeptic-tagged", "owner": "bob", "tier": "optional"},  # off for alice
                {"name": "skeptic-archived", **FORCED, "lifecycle": "archived"},
                {"name": "skeptic-opted-out", **FORCED},
                {"name": "plain", **FORCED},
                {"name": "k8s-debug", **FORCED},
            ],
            "people/alice": [{"name": "skeptic-opted-out", "from": "global", "tier": "off"}],
            "people/bob": [{"name": "bob-skeptic", "owner": "bob", "tier": "always"}],
        },
        scopes=["people/alice", "people/bob"],
        skills={
            "global/skeptic-review": skill_md(
                "skeptic-review", "Challenge every claim.", personas="[skeptic]"
            ),
            "global/skeptic-tagged": skill_md(
                "skeptic-tagged", "Ask for the evidence.", tags="[skeptic, review]"
            ),
            "global/skeptic-archived": skill_md(
                "skeptic-archived", "Old doubts.", personas="[skeptic]"
            ),
            "global/skeptic-opted-out": skill_md(
                "skeptic-opted-out", "Doubt loudly.", personas="[skeptic]"
            ),
            "global/plain": skill_md("plain", "Format a table."),
            "global/k8s-debug": skill_md(
                "k8s-debug",
                "Debug Kubernetes pods in CrashLoopBackOff.",
                triggers="[pod keeps restarting]",
            ),
            "people/bob/bob-skeptic": skill_md("bob-skeptic", "Bob doubts.", personas="[skeptic]"),
        },
    )


def linked(root: Path, folder: str = ".claude/skills") -> set[str]:
    path = root / folder
    return {p.name for p in path.iterdir() if p.is_symlink()} if path.is_dir() else set()


def stored(root: Path) -> dict:
    return json.loads((root / ".exobrain.json").read_text("utf-8"))


def test_persona_preloads_visible_skills_at_always_and_is_remembered(tmp_path):
    root = sample(tmp_path)
    result = connected(root, "claude", "--person", "alice", "--persona", "skeptic")
    assert linked(root) == {"skeptic-review", "skeptic-tagged"}
    assert "persona skeptic: 2 skill(s) preloaded (skeptic-review, skeptic-tagged)" in result.output
    assert stored(root)["preload"] == {"claude": {"persona": "skeptic"}}
    index = (root / ".claude/optional-skills.md").read_text("utf-8")
    assert "| plain |" in index and "skeptic-review" not in index
    connected(root, "claude", "--relink")
    assert linked(root) == {"skeptic-review", "skeptic-tagged"}
    connected(root, "claude", "--relink", "--persona", "")
    assert linked(root) == set()
    assert "preload" not in stored(root)


def test_persona_is_per_agent_and_dry_run_changes_nothing(tmp_path):
    root = sample(tmp_path)
    connected(root, "claude", "--person", "alice")
    before = sorted(os.listdir(root / ".claude"))
    result = connected(root, "claude", "--person", "alice", "--persona", "skeptic", "--dry-run")
    assert "persona skeptic" in result.output and sorted(os.listdir(root / ".claude")) == before
    assert "preload" not in stored(root)
    connected(root, "gemini", "--person", "alice", "--persona", "skeptic")
    assert linked(root, ".gemini/skills") == {"skeptic-review", "skeptic-tagged"}
    assert linked(root) == set()  # claude was connected without a persona
    assert stored(root)["preload"] == {"gemini": {"persona": "skeptic"}}


def test_discover_writes_an_index_the_agent_reads(tmp_path):
    root = sample(tmp_path)
    connected(
        root,
        "claude",
        "--person",
        "alice",
        "--discover",
        "the pod keeps restarting",
        "--persona",
        "",
    )
    text = (root / ".claude/discovered-skills.md").read_text("utf-8")
    assert text.startswith(GENERATED_MARK)
    assert "| k8s-debug | skills/k8s-debug/SKILL.md | Debug Kubernetes pods" in text
    assert "bob-skeptic" not in text
    assert "@discovered-skills.md" in (root / ".claude/CLAUDE.md").read_text("utf-8")
    assert stored(root)["preload"] == {"claude": {"discover": "the pod keeps restarting"}}
    written = (root / ".claude/discovered-skills.md").stat().st_mtime_ns
    connected(root, "claude", "--relink")  # remembered, and unchanged: not rewritten
    assert (root / ".claude/discovered-skills.md").stat().st_mtime_ns == written
    connected(root, "claude", "--relink", "--discover", "")
    assert not (root / ".claude/discovered-skills.md").exists()
    assert "discovered-skills" not in (root / ".claude/CLAUDE.md").read_text("utf-8")


def test_discover_for_codex_and_index_agents(tmp_path):
    root = sample(tmp_path)
    connected(root, "codex", "--person", "alice", "--discover", "the pod keeps restarting")
    override = (root / "AGENTS.override.md").read_text("utf-8")
    assert "# Discovered skills" in override and "k8s-debug" in override
    assert override.count(GENERATED_MARK) == 1
    connected(root, "gemini", "--person", "alice", "--discover", "the pod keeps restarting")
    assert "k8s-debug" in (root / ".gemini/discovered-skills.md").read_text("utf-8")


def test_bad_preload_in_the_connection_file_is_bad_input(tmp_path):
    root = sample(tmp_path)
    connected(root, "claude", "--person", "alice")
    data = stored(root)
    data["preload"] = {"claude": {"persona": 3}}
    (root / ".exobrain.json").write_text(json.dumps(data), "utf-8")
    result = CliRunner().invoke(connect_cmd, ["claude", "--relink", "--repo", str(root)])
    assert result.exit_code == 2 and "preload.claude" in result.output
