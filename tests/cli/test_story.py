"""Issue 17, must show: a team's daily life, played on fresh clones with the installed console
scripts. dana creates a group, connects, writes a skill in her person scope, registers it,
proves it, moves it into the group; her colleague bob opts in from his own clone; dana
supersedes it with a successor. After every step ``skills-validate --strict`` and
``exobrain lock --check`` pass.

``--strict`` fails on infos too, so every step must leave not even an info behind.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.helpers import build_tree, git, skill_md

BIN = Path(sys.executable).parent


def sh(command: str, cwd: Path, code: int | None = 0) -> subprocess.CompletedProcess:
    """Run ``command`` with the installed console scripts first on PATH; ``code`` None takes
    any exit code."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert code is None or done.returncode == code, f"{command}\n{done.stdout}{done.stderr}"
    return done


def out(command: str, cwd: Path) -> str:
    return sh(command, cwd).stdout


def healthy(clone: Path) -> None:
    """skills-validate --strict and lock --check both pass."""
    done = sh("skills-validate --strict --json", clone, code=None)
    assert done.returncode == 0, json.loads(done.stdout)["findings"]
    sh("exobrain lock --check", clone)


def commit_and_push(clone: Path, message: str) -> None:
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "--no-verify", "-m", message)
    git(clone, "push", "-q", "origin", "HEAD:main")


@pytest.mark.slow
def test_a_team_s_daily_life(tmp_path):
    # a fresh exobrain on a shared remote; dana clones it
    sh(f"exobrain create-instance {tmp_path / 'work'} --repo {ROOT}", tmp_path)
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "work"), str(tmp_path / "origin.git"))
    dana = tmp_path / "dana"
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(dana))
    healthy(dana)

    # 1. create a group (and her person scope) and connect
    sh("exobrain scope new groups/acme && exobrain scope new people/dana", dana)
    commit_and_push(dana, "scopes: groups/acme, people/dana")
    healthy(dana)
    said = out("connect-agent claude --person dana --group acme", dana)
    assert said.splitlines()[0].startswith("claude [project] ← groups/acme, people/dana (as dana)")
    healthy(dana)

    # 2. write a skill in the person scope and register it
    build_tree(dana, {"people/dana/skills/tidy/SKILL.md": skill_md("tidy")})
    said = out("exobrain register people/dana/skills/tidy", dana)
    assert "registered skill:tidy@people/dana 0.1.0" in said
    healthy(dana)

    # 3. prove it: a real test in its own folder (the content changed: a new version)
    tests = "def test_tidy_sorts():\n    assert sorted(['b', 'a']) == ['a', 'b']\n"
    build_tree(dana, {"people/dana/skills/tidy/tests/test_tidy.py": tests})
    sh("exobrain register people/dana/skills/tidy --bump patch", dana)
    commit_and_push(dana, "tidy, with its test")
    healthy(dana)

    # 4. move it into the group: the gate counts it as new there and finds its proof
    said = out("exobrain move skill:tidy@people/dana --to groups/acme", dana)
    assert "proof found: tests/test_tidy.py (test)" in said
    healthy(dana)
    git(dana, "add", "-A")  # what the move changed; the gate judges what is staged
    assert "authoring-review: ok — 1 new shared skill, all proven" in out("authoring-review", dana)
    commit_and_push(dana, "tidy moves to acme")
    sh("connect-agent claude --relink", dana)
    index = (dana / ".claude/optional-skills.md").read_text()
    assert "| tidy | groups/acme/skills/tidy/SKILL.md |" in index  # still dana's, optional
    healthy(dana)

    # 5. a colleague opts in, in his own clone
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(bob))
    sh("exobrain scope new people/bob", bob)
    sh("connect-agent claude --person bob --group acme", bob)
    assert not (bob / ".claude/skills/tidy").exists()  # not his, not forced
    said = out("skills-promote tidy --from groups/acme --to always", bob)
    assert "for you: tidy off → always" in said
    sh("connect-agent claude --relink", bob)
    assert os.readlink(bob / ".claude/skills/tidy") == "../../groups/acme/skills/tidy"
    healthy(bob)
    commit_and_push(bob, "bob opts into tidy")
    healthy(bob)

    # 6. dana supersedes it with a successor that brings its own proof
    git(dana, "pull", "-q", "--no-rebase")
    build_tree(
        dana,
        {
            "groups/acme/skills/neat/SKILL.md": skill_md("neat"),
            "groups/acme/skills/neat/evals/sort.eval.json": {
                "prompt": "tidy the imports of app.py",
                "expect": ["imports sorted", "nothing else changed"],
            },
        },
    )
    sh("exobrain register groups/acme/skills/neat --owner dana", dana)
    healthy(dana)
    said = out("exobrain supersede skill:neat@groups/acme skill:tidy@groups/acme", dana)
    assert "(version 0.1.0 → 0.1.1)" in said  # the edit is a new version, and locked
    healthy(dana)
    git(dana, "add", "-A")
    assert "all proven" in out("authoring-review", dana)  # neat is new in acme, with its eval
    commit_and_push(dana, "neat supersedes tidy")

    # bob's next pull relinks through the hook connect-agent installed: neat replaces tidy
    git(bob, "pull", "-q", "--no-rebase")
    skills = sorted(p.name for p in (bob / ".claude/skills").iterdir())
    assert "neat" in skills and "tidy" not in skills
    healthy(bob)
