"""The sandbox every attack runs in: after each test, nothing outside the repository (the
home with its ``.bashrc``, a folder of someone else's files) may have changed."""

from __future__ import annotations

import pytest

from tests.support.sandbox import sandbox


@pytest.fixture
def box(tmp_path, isolated_home, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    box = sandbox(tmp_path, isolated_home)
    before = box.snap()
    yield box
    assert box.snap() == before, "a file outside the repository changed"
