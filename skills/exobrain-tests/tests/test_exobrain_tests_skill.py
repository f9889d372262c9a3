"""Proof for the exobrain-tests skill: the checks it documents are the checks selftest runs,
selftest passes and fails where it should on a real exobrain, and repair.sh fixes what it says
it fixes."""

import json
import re
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.instance.selftest import CHECKS
from exobrain.skillmd import read_skill
from exobrain.testkit import isolated_env, run, small_exobrain

SKILL = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)


def selftest(repo, *args):
    done = run(["exobrain", "selftest", "--no-suite", "--json", "--repo", str(repo), *args], repo)
    return done.returncode, {c["name"]: c for c in json.loads(done.stdout)["checks"]}


def test_frontmatter_is_valid_and_trigger_rich():
    doc = read_skill(SKILL / "SKILL.md")
    assert spec_problems(doc.meta, SKILL.name) == []
    for trigger in ("selftest", "healthy", "after pulling", "before opening a pull request"):
        assert trigger in doc.meta["description"]


def test_the_documented_checks_are_the_checks_selftest_runs():
    body = (SKILL / "SKILL.md").read_text(encoding="utf-8")
    table = body.split("## The checks", 1)[1].split("\n\n", 2)[1]
    assert re.findall(r"^\| `([a-z-]+)` \|", table, re.M) == list(CHECKS)
    details = (SKILL / "references" / "checks.md").read_text(encoding="utf-8")
    assert re.findall(r"^## ([a-z-]+)$", details, re.M) == list(CHECKS)


def test_selftest_passes_on_a_healthy_exobrain_and_names_a_missing_schema(tmp_path):
    repo = small_exobrain(tmp_path / "exo")
    code, checks = selftest(repo)
    assert code == 0, checks
    assert checks["schemas"]["status"] == "pass"
    assert checks["skills-validate"]["status"] == "pass"
    assert checks["agents"]["status"] == "skip"
    (repo / "skills.schema.json").unlink()
    code, checks = selftest(repo)
    assert code == 1
    assert checks["schemas"]["status"] == "fail"
    assert "skills.schema.json is missing" in checks["schemas"]["problems"]


def test_repair_relinks_an_agent_whose_link_was_removed(tmp_path):
    repo = small_exobrain(tmp_path / "exo", ("hello",), tier="always", scopes=("people/ann",))
    done = run(["connect-agent", "claude", "--person", "ann", "--repo", str(repo)], repo)
    assert done.returncode == 0, done.stdout + done.stderr
    link = repo / ".claude" / "skills" / "hello"
    assert link.is_symlink()
    link.unlink()
    code, checks = selftest(repo)
    assert code == 1 and checks["agents"]["status"] == "fail"
    assert any("hello" in p for p in checks["agents"]["problems"])
    done = run(["bash", str(SKILL / "scripts" / "repair.sh"), str(repo)], repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert link.is_symlink()
    assert "0 failed" in done.stdout
