"""The launchers hold whatever ``PYTHONPATH`` says (issue 40, item 4).

``python -P`` keeps the current folder off the import path, but not a ``PYTHONPATH`` entry
that names it: an empty one (``export PYTHONPATH=$PYTHONPATH:/x`` with nothing before),
``.`` or any relative path. With one, a committed ``exobrain/`` package ran instead of the
toolkit in the MCP server an agent starts, the usage hook, the git hooks every pull runs and
the console scripts. Each test here commits such a package (it writes a marker when
imported), sets such a ``PYTHONPATH`` and starts the process exactly as it is started for
real; the marker must never appear and the real toolkit must do the work.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from exobrain.connect.mcpconfig import config_file
from exobrain.paths import CONSOLE_SCRIPTS
from tests.security.test_launchers import WAIT, ask_server, hook_line, mcp_command, plant
from tests.support.helpers import build_tree, git, init_repo
from tests.support.hostile import invoke

#: PYTHONPATH values that name the current folder: empty entries, ".", a relative path.
AIMED = [os.pathsep, f"{os.pathsep}/nonexistent", ".", f"scripts{os.sep}.."]


@pytest.mark.parametrize(("agent", "pythonpath"), [("claude", AIMED[0]), ("codex", AIMED[2])])
def test_the_mcp_server_ignores_pythonpath(sandbox, monkeypatch, agent, pythonpath):
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    assert invoke(sandbox.root, ["connect-agent", agent, "--mcp"]).code == 0
    sandbox.expected.append(config_file(agent, sandbox.root, False)[0])  # Claude's: the user's
    command = mcp_command(sandbox.root, agent)
    monkeypatch.setenv("PYTHONPATH", pythonpath)  # what the agent's own environment holds
    answered = ask_server(sandbox.root, command)
    assert not marker.exists(), marker.read_text()
    assert answered is not None and "skill:hello@global" in answered[1], command
    assert command[1:3] == ["-I", "-m"]


def test_the_usage_hook_ignores_pythonpath(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    assert invoke(sandbox.root, ["connect-agent", "claude", "--track-usage"]).code == 0
    line = hook_line(sandbox.root / ".claude/settings.local.json", "PostToolUse")
    payload = {"tool_name": "Skill", "tool_input": {"skill": "hello"}, "cwd": str(sandbox.root)}
    done = subprocess.run(
        line,
        shell=True,
        cwd=sandbox.root,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": "."},
    )
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (sandbox.root / "signals/alice/laptop.jsonl").is_file()


def test_a_pull_runs_the_installed_toolkit_in_the_post_merge_hook(sandbox, monkeypatch):
    """The relink hook runs connect-agent after every pull, in the clone, where the pull has
    just brought the package."""
    marker = sandbox.victim / "pwned"
    clone = sandbox.scratch / "member"
    git(sandbox.scratch, "clone", "-q", str(sandbox.root), str(clone))
    build_tree(clone, {".exobrain.json": {"connected_scopes": ["groups/acme"], "person": "bo"}})
    assert invoke(clone, ["connect-agent", "claude"]).code == 0  # installs post-merge
    (clone / ".claude/skills/tidy").unlink()  # what the hook's relink puts back
    plant(sandbox.root, marker)
    monkeypatch.setenv("PYTHONPATH", os.pathsep)
    pulled = git(clone, "pull", "-q", "--no-rebase", "origin", "main")
    assert not marker.exists(), pulled
    assert (clone / "exobrain/__init__.py").is_file()  # the pull brought it
    assert (clone / ".claude/skills/tidy").is_symlink()  # and the real connect-agent ran
    hook = (clone / ".git/hooks/post-merge").read_text()
    assert "unset PYTHONPATH" in hook


@pytest.mark.parametrize("pythonpath", AIMED)
def test_a_console_script_ignores_what_pythonpath_aims_at_the_current_folder(sandbox, pythonpath):
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    build_tree(sandbox.root, {"scripts/exobrain/__init__.py": f"open({str(marker)!r}, 'w')\n"})
    script = Path(sys.executable).parent / "exobrain"
    done = subprocess.run(
        [str(script), "--version"],
        cwd=sandbox.root,
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": pythonpath},
    )
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0 and done.stdout.startswith("exobrain (exobrain-skills) "), (
        done.stdout + done.stderr
    )


@pytest.mark.slow
def test_a_wheel_installed_by_pip_gets_the_launcher_beside_its_scripts(base_bin, tmp_path):
    """Not an editable install: pip installs the wheel into a new environment, the launcher
    lands in its scripts folder (script-files), and a script there holds under the attack."""
    folder = base_bin
    assert (folder / "exobrain_launcher.py").is_file()
    marker, repo = tmp_path / "pwned", init_repo(tmp_path / "repo")
    plant(repo, marker)
    done = subprocess.run(
        [str(folder / "skills-validate"), "--version"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": os.pathsep},
    )
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0 and "exobrain-skills" in done.stdout, done.stdout + done.stderr


def test_every_console_script_enters_through_the_launcher_installed_beside_it():
    """pip puts a script's own folder before PYTHONPATH: the launcher must be there, and
    every console script must import it (an install older than the launcher needs
    ``pip install -e .`` again)."""
    folder = Path(sys.executable).parent
    assert (folder / "exobrain_launcher.py").is_file()
    for name in CONSOLE_SCRIPTS:
        text = (folder / name).read_text()
        assert f"from exobrain_launcher import {name.replace('-', '_')}" in text, name


def test_an_absolute_pythonpath_entry_is_the_users_and_kept(tmp_path):
    """Only entries naming the current folder are dropped: a folder named on purpose stays."""
    mine = build_tree(tmp_path / "mine", {"mine_marker.py": "VALUE = 1\n"})
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, exobrain_launcher; exobrain_launcher._without_relative_pythonpath(); "
            f"import mine_marker; print(mine_marker.VALUE, {str(tmp_path)!r} in sys.path)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(["", ".", str(mine)])},
    )
    assert done.stdout.split() == ["1", "False"], done.stderr


def test_isolation_flags_keep_a_user_site_install_importable(monkeypatch):
    from exobrain.paths import isolation_flags

    assert isolation_flags() == ["-I"]  # a virtual environment: nothing of the user's needed
    here = Path(__file__).resolve().parents[2] / "scripts"  # where the package is imported from
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(here))
    monkeypatch.delenv("PYTHONUSERBASE", raising=False)
    assert isolation_flags() == ["-E", "-P"]
    monkeypatch.setenv("PYTHONUSERBASE", "/opt/base")  # -E would lose that site-packages
    assert isolation_flags() == ["-P"]
