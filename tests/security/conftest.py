"""The sandboxes every attack runs in: after each test, nothing outside the repository (the
home with its ``.bashrc`` and ``.ssh``, a folder of someone else's files) may have changed, and
the toolkit's own cache, state and settings folders are the only ones it may write."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.hostile import shared_exobrain, user_files
from tests.support.sandbox import sandbox as repository_box
from tests.support.sandbox import snapshot


@pytest.fixture
def box(tmp_path, isolated_home, monkeypatch):
    """A connected repository, a home and an outside folder (the archive, link, special-file
    and ownership attacks)."""
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    box = repository_box(tmp_path, isolated_home)
    before = box.snap()
    yield box
    assert box.snap() == before, "a file outside the repository changed"


@dataclass(frozen=True)
class Scene:
    root: Path  # the exobrain
    home: Path  # the isolated HOME
    victim: Path  # a folder of the user's, watched (markers of code that ran land here)
    scratch: Path  # where a test builds what the attacker controls (upstreams, instances)
    #: files outside the repository the command under test is meant to write (a test adds
    #: them: Claude Code's MCP entry lives in the user's own .claude.json)
    expected: list[Path] = field(default_factory=list)


@pytest.fixture
def sandbox(tmp_path: Path, isolated_home: Path):
    """A shared exobrain among the user's files (the bomb, schema, trust, traceback and
    integrity attacks)."""
    root = shared_exobrain(tmp_path)
    user_files(tmp_path, isolated_home)
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    own = (".cache", ".config", ".local/state")  # the toolkit's own folders live in there
    for folder in own:
        (isolated_home / folder).mkdir(parents=True, exist_ok=True)
    skip = (root, scratch, *(isolated_home / folder / "exobrain" for folder in own))
    before = snapshot(tmp_path, isolated_home, skip=skip)
    scene = Scene(root, isolated_home, tmp_path / "victim", scratch)
    yield scene
    after = snapshot(tmp_path, isolated_home, skip=skip)
    meant = {str(p) for p in scene.expected} | {str(p.parent) for p in scene.expected}
    changed = sorted(c for c in set(before.items()) ^ set(after.items()) if c[0] not in meant)
    assert not changed, f"changed outside the sandbox: {changed}"
