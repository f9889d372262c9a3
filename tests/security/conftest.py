"""The sandbox every attack runs in: a real exobrain beside files of the user's; after the
test, nothing outside the exobrain and the toolkit's own cache and settings may have changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.sandbox import shared_exobrain, snapshot, user_files


@dataclass(frozen=True)
class Sandbox:
    root: Path  # the exobrain
    home: Path  # the isolated HOME
    victim: Path  # a folder of the user's, watched (markers of code that ran land here)
    scratch: Path  # where a test builds what the attacker controls (upstreams, instances)


@pytest.fixture
def sandbox(tmp_path: Path, isolated_home: Path):
    root = shared_exobrain(tmp_path)
    user_files(tmp_path, isolated_home)
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    for folder in (".cache", ".config"):  # the toolkit's own folders live in there
        (isolated_home / folder).mkdir(exist_ok=True)
    watched = [tmp_path, isolated_home]
    toolkit = [isolated_home / ".cache" / "exobrain", isolated_home / ".config" / "exobrain"]
    before = snapshot(watched, [root, scratch, *toolkit])
    yield Sandbox(root, isolated_home, tmp_path / "victim", scratch)
    after = snapshot(watched, [root, scratch, *toolkit])
    changed = sorted(set(before.items()) ^ set(after.items()))
    assert not changed, f"changed outside the sandbox: {changed}"
