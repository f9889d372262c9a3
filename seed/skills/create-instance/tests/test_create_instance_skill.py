"""Proof for the create-instance skill: the command it tells an agent to run works as written,
and what it says an instance gets (and never gets) is what create-instance makes."""

import json
import re
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.instance.framework import FRAMEWORK_FILES, FRAMEWORK_FOLDERS
from exobrain.skillmd import read_skill
from exobrain.testkit import isolated_env, run

SKILL = Path(__file__).resolve().parents[1]
SEED = SKILL.parents[2]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)


def test_frontmatter_is_valid_and_the_skill_stays_undeclared():
    doc = read_skill(SKILL / "SKILL.md")
    assert spec_problems(doc.meta, SKILL.name) == []
    registry = json.loads((SEED / "seed" / "skills.json").read_text())
    assert "create-instance" not in {e["name"] for e in registry["skills"]}


def test_the_documented_command_renders_what_the_skill_lists(tmp_path):
    body = (SKILL / "SKILL.md").read_text(encoding="utf-8")
    command = re.search(r"^exobrain create-instance .*$", body, re.M).group(0).split()
    target = tmp_path / "exobrain"
    argv = [command[0], command[1], str(target), *command[3:]]
    argv = [a for a in argv if a not in ("--agent", "claude")]  # connecting is tested elsewhere
    done = run([*argv, "--repo", str(SEED)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "next: cd" in done.stdout
    listed = body.split("## What the instance gets", 1)[1]
    for path in [*FRAMEWORK_FILES, *FRAMEWORK_FOLDERS]:
        assert f"`{path.rstrip('/')}" in listed, f"the skill does not list {path}"
        if (SEED / path).exists():
            assert (target / path).exists(), path
    for starter in (
        "skills.json",
        "skills.lock.json",
        "crons.json",
        "scopes.json",
        "people/alice/AGENTS.md",
        "people/alice/hosts/laptop/AGENTS.md",
    ):
        assert (target / starter).exists(), starter
    assert not (target / "seed").exists()
    assert (SKILL / "references" / "after-creating.md").is_file()


def test_a_folder_that_holds_anything_is_refused(tmp_path):
    target = tmp_path / "busy"
    target.mkdir()
    (target / "notes.txt").write_text("mine\n")
    done = run(["exobrain", "create-instance", str(target), "--repo", str(SEED)], tmp_path)
    assert done.returncode == 2 and "not empty" in done.stderr
    assert [p.name for p in target.iterdir()] == ["notes.txt"]
