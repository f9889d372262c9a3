"""Proof for the seed-harvest skill: the workflow it describes works end to end on a real
seed and instance — the report names the instance's new skill, --pick brings it into a shared
scope with its provenance, the authoring gate then asks for proof, and the instance is never
touched."""

import json
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.instance.create import create_instance
from exobrain.skillmd import read_skill
from exobrain.testkit import git, isolated_env, run

SKILL = Path(__file__).resolve().parents[1]
SEED = SKILL.parents[2]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)


def a_seed(tmp_path: Path) -> Path:
    """A seed of our own to write into: a rendered copy of the framework plus seed/."""
    seed = create_instance(SEED, tmp_path / "seed").root
    (seed / "seed").mkdir()
    (seed / "seed" / "AGENTS.md").write_text("# seed\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "--no-verify", "-m", "a seed")
    return seed


def an_instance(tmp_path: Path, name: str, proof: bool) -> Path:
    root = create_instance(SEED, tmp_path / name, person="ann").root
    folder = root / "people" / "ann" / "skills" / "tidy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use it when the user "
        "asks to tidy a folder.\nversion: 0.2.0\n---\nSort it.\n"
    )
    if proof:
        (folder / "tests").mkdir()
        (folder / "tests" / "test_tidy.sh").write_text("#!/bin/sh\ntest -f SKILL.md\n")
    (root / "people" / "ann" / "skills.json").write_text(
        json.dumps({"skills": [{"name": "tidy", "owner": "ann", "tier": "always"}]}) + "\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "tidy")
    return root


def test_frontmatter_is_valid():
    assert spec_problems(read_skill(SKILL / "SKILL.md").meta, SKILL.name) == []


@pytest.mark.parametrize("proof", [True, False])
def test_report_pick_then_the_gate(tmp_path, proof):
    seed = a_seed(tmp_path)
    instance = an_instance(tmp_path, "ann-exobrain", proof)
    head, status = git(instance, "rev-parse", "HEAD"), git(instance, "status", "--porcelain")
    (seed / ".exobrain.json").write_text(json.dumps({"instances": ["../ann-exobrain"]}))
    done = run(["exobrain", "harvest", "--json", "--repo", str(seed)], seed)
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)["instances"]
    assert report["state"] == "ok"
    assert {"kind": "only-there", "path": "people/ann/skills/tidy/", "skill": "tidy"} in report[
        "facts"
    ]
    done = run(
        ["exobrain", "harvest", "--pick", "tidy", "--into", "global", "--repo", str(seed)], seed
    )
    assert done.returncode == 0, done.stderr
    assert "picked people/ann/skills/tidy" in done.stdout
    assert (seed / "skills" / "tidy" / "SKILL.md").is_file()
    entry = next(
        e for e in json.loads((seed / "skills.json").read_text())["skills"] if e["name"] == "tidy"
    )
    assert entry["owner"] == "ann" and entry["tier"] == "optional"
    assert "harvested from ../ann-exobrain" in entry["notes"]
    assert "tidy" in json.loads((seed / "skills.lock.json").read_text())["skills"]
    assert run(["skills-validate", "--repo", str(seed)], seed).returncode == 0
    git(seed, "add", "-A")
    gate = run(["authoring-review", "--base", "HEAD", "--repo", str(seed)], seed)
    assert gate.returncode == (0 if proof else 1), gate.stdout + gate.stderr
    if not proof:
        assert "tidy" in gate.stdout + gate.stderr
    assert git(instance, "rev-parse", "HEAD") == head
    assert git(instance, "status", "--porcelain") == status
