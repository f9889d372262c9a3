"""An import killed at any step of its write sequence leaves a state that the command the
toolkit then prints repairs: after following it, skills-validate --strict and exobrain lock
--check pass and the skill is a complete import (``import --update`` finds it up to date).

Each kill is a real SIGKILL of an ``exobrain import`` process, sent from inside the step of
:mod:`exobrain.interop.importer` where it stops, so no cleanup of Python's runs."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from tests.support.bundles import snapshot, target_repo
from tests.support.helpers import build_tree, skill_md

#: Runs ``exobrain ARGS…`` with the importer's function NAME replaced by one that kills the
#: process (after doing its work when ``after`` is given, else before).
DRIVER = """
import os, signal, sys
import exobrain.interop.importer as importer
name, when, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
real = getattr(importer, name)
def killed(*args, **kwargs):
    if when == "after":
        real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(importer, name, killed)
from exobrain.cli.umbrella import main
main(argv)
"""

#: The write sequence: the copy half-written in its staging folder, the copy in place, just
#: before the lock is written (where the defect was: the skill declared, never locked), the
#: lock written (the declaration, last, is what is missing then).
STEPS = {
    "mid-copy": ("copy_tree", "after"),
    "after-copy": ("upstream_record", "before"),
    "before-lock": ("update_lock", "before"),
    "after-lock": ("update_lock", "after"),
}


def run(command, root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(command, [*args, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout + result.stderr


def killed_import(root: Path, step: str, *args: str) -> None:
    name, when = STEPS[step]
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, name, when, "import", *args, "--repo", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    return build_tree(
        tmp_path / "up",
        {
            "tidy/SKILL.md": skill_md("tidy", "Use tidy when the user asks to tidy a folder."),
            "tidy/helper.py": "print('tidy')\n",
            "sort/SKILL.md": skill_md("sort", "Use sort when the user asks to sort a list."),
        },
    )


def follow(root: Path, printed: str, again: list[str]) -> None:
    """Do what the toolkit said: the shell command it printed, or the import again."""
    command = re.search(r"remove it: (rm -r \S+)", printed)
    if command:
        subprocess.run(command.group(1), shell=True, cwd=root, check=True)
    else:
        assert "run that import again" in printed or "run that exobrain import again" in printed
        code, out = run(exobrain_cli, root, *again)
        assert code == 0, out
        assert "imported" in out


def assert_complete(root: Path, names: list[str]) -> None:
    code, out = run(validate, root, "--strict")
    assert code == 0, out
    code, out = run(exobrain_cli, root, "lock", "--check")
    assert code == 0, out
    declared = json.loads((root / "people/al/skills.json").read_text())["skills"]
    assert sorted(e["name"] for e in declared) == sorted(names)
    leftovers = [p for p in (root / "people/al/skills").iterdir() if p.name.startswith(".")]
    assert leftovers == []
    for name in names:
        code, out = run(exobrain_cli, root, "import", "--update", name)
        assert code == 0 and "up to date" in out, out


@pytest.mark.parametrize("step", list(STEPS))
def test_an_import_killed_at_each_step_is_repaired_by_the_printed_command(tmp_path, upstream, step):
    root = target_repo(tmp_path)
    source = str(upstream / "tidy")
    before = snapshot(upstream)
    killed_import(root, step, source)
    code, printed = run(validate, root, "--strict")
    assert code == 1, printed  # the interrupted state is never passed over in silence
    if step == "mid-copy":
        assert "interrupted-write" in printed and "remove it: rm -r " in printed
    else:
        assert "if an exobrain import of it was interrupted, run that import again" in printed
    if step == "after-lock":
        code, stale = run(exobrain_cli, root, "lock", "--check")
        assert code == 1 and "an import of it was interrupted" in stale
        assert "run that exobrain import again to finish it" in stale
    follow(root, printed, ["import", source])
    if step == "mid-copy":  # rolled back: nothing of it is left, and the import can be run
        assert not (root / "people/al/skills/tidy").exists()
        assert run(validate, root, "--strict")[0] == 0
        assert run(exobrain_cli, root, "lock", "--check")[0] == 0
        assert run(exobrain_cli, root, "import", source)[0] == 0
    assert_complete(root, ["tidy"])
    assert snapshot(upstream) == before  # the source is read, never written


def test_the_import_run_again_also_removes_a_half_copy_itself(tmp_path, upstream):
    root = target_repo(tmp_path)
    killed_import(root, "mid-copy", str(upstream / "tidy"))
    (left,) = (root / "people/al/skills").iterdir()
    assert left.name.startswith(".exobrain-tmp-tidy-")
    code, out = run(exobrain_cli, root, "import", str(upstream / "tidy"))
    assert code == 0, out
    assert_complete(root, ["tidy"])


def test_a_batch_killed_after_its_first_copy_is_finished_by_running_it_again(tmp_path, upstream):
    root = target_repo(tmp_path)
    killed_import(root, "after-copy", str(upstream), "--all")
    copied = [p.name for p in (root / "people/al/skills").iterdir()]
    assert len(copied) == 1  # one skill copied, nothing declared or locked
    code, out = run(exobrain_cli, root, "import", str(upstream), "--all")
    assert code == 0, out
    assert "finished an import of it that was interrupted" in out
    assert_complete(root, ["sort", "tidy"])


def test_a_lock_written_by_hand_in_between_does_not_stop_the_repair(tmp_path, upstream):
    """exobrain lock drops the entry of the undeclared copy; validate's advice still repairs."""
    root = target_repo(tmp_path)
    source = str(upstream / "tidy")
    killed_import(root, "after-lock", source)
    assert run(exobrain_cli, root, "lock")[0] == 0
    code, printed = run(validate, root, "--strict")
    assert code == 1
    follow(root, printed, ["import", source])
    assert_complete(root, ["tidy"])


def test_an_unrelated_folder_in_the_way_is_not_taken_for_an_interrupted_import(tmp_path, upstream):
    root = target_repo(tmp_path)
    build_tree(root, {"people/al/skills/tidy/SKILL.md": skill_md("tidy", "Mine, not imported.")})
    code, out = run(exobrain_cli, root, "import", str(upstream / "tidy"))
    assert code == 1
    assert "holds other files than this import writes; move it away" in out
    assert "import --update tidy" not in out  # never imported: updating it cannot work
    assert "Mine, not imported." in (root / "people/al/skills/tidy/SKILL.md").read_text()
