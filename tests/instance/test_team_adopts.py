"""Issue 32, must show: a team's first steps without a fight. In a new instance, real skills are
imported into a person scope and committed (pre-commit passes: the toolkit's code checks do not
judge a skill's scripts); one is moved into a group following only the advice the toolkit
prints, and committed (the authoring gate and skills-validate --strict pass)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES, ROOT
from tests.support.helpers import build_tree, git

BIN = Path(sys.executable).parent
SAMPLE = FIXTURES / "skills-sample" / "wshobson"  # licensed real skills, scripts included


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    program = str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0]
    return subprocess.run(
        [program, *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


def commit(inst: Path, message: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``git commit`` as a person runs it: the instance's pre-commit hook runs."""
    git(inst, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=inst,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_a_team_imports_tries_and_moves_a_skill_following_the_advice(tmp_path):
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
    }
    env.pop("EXOBRAIN_SKIP_AUTHORING_REVIEW", None)
    inst = tmp_path / "team"
    made = run(
        ["exobrain", "create-instance", str(inst), "--person", "dana", "--repo", str(ROOT)],
        tmp_path,
        env,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert (inst / ".git" / "hooks" / "pre-commit").is_file()  # pre-commit was installed

    bundle = tmp_path / "bundle"
    shutil.copytree(SAMPLE, bundle)
    # the upstream ships a script in its author's style, not the toolkit's (ruff would
    # reformat it): the instance's code checks must not judge it
    build_tree(
        bundle,
        {
            "sql-optimization-patterns/scripts/explain.py": (
                "import sys,os\ndef main( ):\n  print ( 'EXPLAIN ANALYZE '+sys.argv[1] )  "
                "# " + "x" * 120 + "\nmain()\n"
            )
        },
    )
    imported = run(
        ["exobrain", "import", str(bundle), "--all", "--into", "people/dana", "--owner", "dana"],
        inst,
        env,
    )
    assert imported.returncode == 0, imported.stdout + imported.stderr
    first = commit(inst, "try the wshobson skills", env)
    assert first.returncode == 0, first.stdout + first.stderr  # ruff never judged their scripts

    scope = run(["exobrain", "scope", "new", "groups/acme"], inst, env)
    assert scope.returncode == 0, scope.stderr
    assert commit(inst, "a group", env).returncode == 0

    moved = run(["exobrain", "move", "skill:uv-package-manager", "--to", "groups/acme"], inst, env)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    advice = moved.stdout
    match = re.search(
        r"add a test, an eval or an A/B result in (\S+)/, then (exobrain .+?) --bump patch", advice
    )
    assert match, advice
    folder, register = match.group(1), match.group(2)
    build_tree(  # the proof the advice asks for: an eval
        inst,
        {f"{folder}/evals/basic.json": {"prompt": "set up a uv project", "expect": ["uv init"]}},
    )
    bumped = run([*shlex.split(register), "--bump", "patch"], inst, env)
    assert bumped.returncode == 0, bumped.stdout + bumped.stderr
    second = commit(inst, "adopt uv-package-manager in acme", env)
    assert second.returncode == 0, second.stdout + second.stderr

    strict = run(["skills-validate", "--strict", "--json"], inst, env)
    assert json.loads(strict.stdout)["errors"] == 0, strict.stdout
    review = run(["authoring-review", "--base", "HEAD~1"], inst, env)
    assert review.returncode == 0, review.stdout


def test_an_import_into_a_shared_scope_says_what_the_gate_will_ask(tmp_path):
    from click.testing import CliRunner

    from exobrain.cli.umbrella import main
    from tests.support.helpers import exobrain

    root = exobrain(
        tmp_path / "repo",
        scopes=["groups/acme", "people/dana"],
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )
    bundle = tmp_path / "bundle"
    shutil.copytree(SAMPLE, bundle)
    build_tree(bundle, {"uv-package-manager/tests/test_uv.sh": "uv --version\n"})
    args = ["import", str(bundle), "--all", "--into", "groups/acme", "--owner", "dana"]
    done = CliRunner().invoke(main, [*args, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    out = done.stdout
    assert "15 skill(s) new in the shared scope groups/acme must carry committed proof" in out
    assert "1 already do (the upstream ships it)" in out
    assert "proof found: uv-package-manager: tests/test_uv.sh (test)" in out
    assert "import them into people/dana instead, try them, then" in out
    assert "exobrain move skill:NAME@people/dana --to groups/acme" in out
