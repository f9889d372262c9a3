"""Tests stay in their sandbox: with the caller's per-user folders set to sentinels (as a
developer's shell has them), commands run under :func:`exobrain.testkit.isolated_env` write
nothing there — every location the toolkit writes per user is pointed into the test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from exobrain.testkit import isolated_env, small_exobrain

SENTINELS = ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME")
BIN = Path(sys.executable).parent


def test_commands_leave_the_callers_user_folders_alone(tmp_path):
    sentinels = {name: tmp_path / "sentinel" / name.lower() for name in SENTINELS}
    for folder in sentinels.values():
        folder.mkdir(parents=True)
    outer = {**os.environ, **{name: str(path) for name, path in sentinels.items()}}
    outer["EXOBRAIN_CACHE_DIR"] = str(tmp_path / "sentinel" / "cache-dir")
    env = {**outer, **isolated_env(tmp_path / "box")}
    root = small_exobrain(tmp_path / "repo", ("hello",), scopes=("people/alice",))
    commands = [
        ["connect-agent", "claude", "--person", "alice", "--track-usage", "--mcp"],
        ["exobrain", "signal", "vote", "skill:hello", "up"],
        ["exobrain", "search", "hello"],
        ["exobrain", "quality"],
        ["exobrain", "trust", "--list"],
        ["fetch-external-skills", "--agent", "claude"],
        ["skills-status", "--all"],
    ]
    for argv in commands:
        done = subprocess.run(
            [str(BIN / argv[0]), *argv[1:]],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode in (0, 1), (argv, done.stderr)
    written = {
        name: sorted(str(p.relative_to(path)) for p in path.rglob("*"))
        for name, path in sentinels.items()
    }
    assert written == {name: [] for name in SENTINELS}
    assert not (tmp_path / "sentinel" / "cache-dir").exists()
    box = tmp_path / "box" / "home"
    assert (box / ".local" / "state" / "exobrain" / "owned").is_dir()  # it went here instead
