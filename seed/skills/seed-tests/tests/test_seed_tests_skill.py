"""Proof for the seed-tests skill, and the seed's half of issue 7's must-show: in the seed,
seed-tests and seed-harvest resolve; the instance run.sh renders has neither, and passes the
self-test."""

import os
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.skillmd import read_skill
from exobrain.testkit import isolated_env, run
from exobrain.workspace import open_workspace

SKILL = Path(__file__).resolve().parents[1]
SEED = SKILL.parents[2]
SEED_ONLY = {"seed-tests", "seed-harvest"}


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TMPDIR", str(tmp_path))


def resolved(root: Path) -> dict[str, tuple[str, str]]:
    ws = open_workspace(root)
    return {r.name: (r.home, r.tier) for r in ws.resolve() if r.tier != "off"}


def test_frontmatter_is_valid():
    assert spec_problems(read_skill(SKILL / "SKILL.md").meta, SKILL.name) == []


def test_the_seed_only_skills_resolve_in_the_seed_for_everyone(tmp_path):
    found = resolved(SEED)
    for name in SEED_ONLY:
        assert found.get(name) == ("seed", "optional"), name


@pytest.mark.slow
def test_run_renders_an_instance_that_passes_the_selftest_and_has_no_seed(tmp_path):
    refused = run([str(SKILL / "scripts" / "run.sh")], tmp_path)
    assert refused.returncode == 1 and "the seed's test suite is not trusted" in refused.stderr
    assert run(["exobrain", "trust", "--suite", "--repo", str(SEED)], tmp_path).returncode == 0
    done = run([str(SKILL / "scripts" / "run.sh"), "--keep"], tmp_path, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    for check in (
        "schemas",
        "skills-validate",
        "locks",
        "docs",
        "agents",
        "git-hooks",
        "test-suite",
    ):
        assert f"PASS  {check}" in output, check
    instance = Path(output.split("instance kept at ", 1)[1].split()[0])
    assert instance.is_dir() and not (instance / "seed").exists()
    assert not SEED_ONLY & set(resolved(instance))
    assert not any((instance / "skills" / name).exists() for name in SEED_ONLY)
    assert {"exobrain", "exobrain-tests", "skill-authoring"} <= set(resolved(instance))


def test_unknown_options_are_refused(tmp_path):
    done = run([str(SKILL / "scripts" / "run.sh"), "--fast"], tmp_path)
    assert done.returncode == 2 and "unknown option --fast" in done.stderr
    assert not [p for p in os.listdir(tmp_path) if p.startswith("seed-tests.")]
