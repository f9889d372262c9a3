"""The seed's bootstrap files: a root AGENTS.md and CLAUDE.md that send a fresh agent to
create-instance, never copied into an instance nor missed by harvest, changing no scope and
living beside connect-agent's own files."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.umbrella import main as exobrain_main
from exobrain.instance.create import create_instance
from exobrain.instance.framework import SEED_ONLY, is_framework, read_framework
from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git

pytestmark = pytest.mark.skipif(
    not (ROOT / "seed" / "AGENTS.md").is_file(), reason="seed-only: an instance has no bootstrap"
)
BOOTSTRAP = {name: (ROOT / name).read_text() for name in SEED_ONLY if (ROOT / name).is_file()}


def test_the_seed_sends_a_fresh_agent_to_create_instance():
    agents = BOOTSTRAP["AGENTS.md"]
    assert "seed/skills/create-instance/SKILL.md" in agents
    assert (ROOT / "seed/skills/create-instance/SKILL.md").is_file()
    assert "exobrain create-instance" in agents
    assert BOOTSTRAP["CLAUDE.md"].splitlines()[0] == "@AGENTS.md"  # Claude Code imports it
    assert not any(is_framework(name, ("exobrain",)) for name in SEED_ONLY)
    assert not set(SEED_ONLY) & set(read_framework(ROOT).files)


def test_an_instance_does_not_get_them_and_harvest_does_not_miss_them(tmp_path):
    seed = create_instance(ROOT, tmp_path / "seed").root
    build_tree(seed, {"seed/AGENTS.md": "# seed\n", **BOOTSTRAP})
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "--no-verify", "-m", "a seed with its bootstrap files")
    instance = create_instance(seed, tmp_path / "inst").root
    assert not any((instance / name).exists() for name in SEED_ONLY)
    result = CliRunner().invoke(
        exobrain_main, ["harvest", str(instance), "--json", "--repo", str(seed)]
    )
    report = json.loads(result.output)["instances"][0]
    assert result.exit_code == 0 and report["facts"] == []


def status(root: Path) -> dict:
    result = CliRunner().invoke(status_cmd, ["--json", "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_root_agents_md_changes_no_scope_and_no_generated_file(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["people/al"],
        registries={"global": [{"name": "tidy", "owner": "al", "tier": "always"}]},
        skills={"global/tidy": None},
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )
    before = status(root)
    build_tree(root, BOOTSTRAP)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bootstrap files")
    assert status(root) == before
    for agent in ("claude", "codex"):
        result = CliRunner().invoke(connect_cmd, [agent, "--repo", str(root)])
        assert result.exit_code == 0, result.output
    assert {name: (root / name).read_text() for name in SEED_ONLY} == BOOTSTRAP
    assert (root / ".claude/CLAUDE.md").is_file()  # Claude's block goes beside, not into it
    override = (root / "AGENTS.override.md").read_text()
    assert "seed/skills/create-instance/SKILL.md" in override  # Codex still reads it, inlined
