"""The sandboxes every attack runs in: after each test, nothing outside the repository (the
home with its ``.bashrc`` and ``.ssh``, a folder of someone else's files) may have changed, and
the toolkit's own cache, state and settings folders are the only ones it may write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.hostile import watched_scene
from tests.support.sandbox import sandbox as repository_box


@pytest.fixture
def box(tmp_path, isolated_home, monkeypatch):
    """A connected repository, a home and an outside folder (the archive, link, special-file
    and ownership attacks)."""
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    box = repository_box(tmp_path, isolated_home)
    before = box.snap()
    yield box
    assert box.snap() == before, "a file outside the repository changed"


@pytest.fixture
def sandbox(tmp_path: Path, isolated_home: Path):
    """A shared exobrain among the user's files (the bomb, schema, trust, traceback and
    integrity attacks)."""
    with watched_scene(tmp_path, isolated_home) as scene:
        yield scene
