"""The folder watch: quiet until something inside a watched folder changes, never quiet after
it loses events or a folder, and refused (for good) when the kernel's limit is reached."""

from __future__ import annotations

import os

import pytest

from exobrain.util.watch import FolderWatch, open_watch
from tests.support.watch import LimitReached, needs_inotify

pytestmark = needs_inotify


@pytest.fixture
def watch():
    opened = open_watch()
    assert opened is not None
    yield opened
    opened.close()


def test_quiet_until_a_file_inside_changes(tmp_path, watch):
    (tmp_path / "a.md").write_text("one", encoding="utf-8")
    assert watch.add(str(tmp_path)) and watch.quiet()
    (tmp_path / "a.md").read_text(encoding="utf-8")  # reading is no change
    assert watch.quiet()
    with open(tmp_path / "a.md", "r+", encoding="utf-8") as file:  # in place, same size
        file.write("two")
    assert not watch.quiet()
    assert watch.quiet()  # the events were taken
    os.utime(tmp_path / "a.md", ns=(1, 1))
    assert not watch.quiet()
    (tmp_path / "b.md").write_text("new", encoding="utf-8")
    assert not watch.quiet()
    os.replace(tmp_path / "b.md", tmp_path / "a.md")
    assert not watch.quiet() and not watch.broken


def test_only_entries_directly_inside_count(tmp_path, watch):
    (tmp_path / "cache").mkdir()
    assert watch.add(str(tmp_path)) and watch.quiet()
    (tmp_path / "cache" / "index.sqlite").write_bytes(b"x")
    assert watch.quiet()


def test_a_watched_folder_that_goes_breaks_the_watch(tmp_path, watch):
    folder = tmp_path / "skill"
    folder.mkdir()
    assert watch.add(str(folder)) and watch.add(str(tmp_path))
    folder.rename(tmp_path / "moved")
    assert not watch.quiet()
    assert watch.broken and not watch.refused
    assert not watch.quiet() and not watch.add(str(tmp_path))  # broken for good


def test_a_missing_folder_is_not_watched_and_the_rest_still_is(tmp_path, watch):
    assert not watch.add(str(tmp_path / "absent"))
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    assert not watch.add(str(tmp_path / "file.txt"))  # not a folder (IN_ONLYDIR)
    assert not watch.broken and watch.add(str(tmp_path)) and watch.folders == 1


def test_the_limit_of_watches_refuses_for_good(tmp_path):
    real = open_watch()
    assert real is not None
    watch = FolderWatch(LimitReached(), os.dup(real._fd))  # type: ignore[arg-type]
    real.close()
    assert not watch.add(str(tmp_path))
    assert watch.broken and watch.refused and not watch.quiet()


def test_a_folder_off_the_local_file_systems_is_not_watched(tmp_path, watch, monkeypatch):
    """A network or FUSE file system can change behind the kernel's back: its folders are
    never watched (their files are asked every time), and the watch stays usable."""
    import exobrain.util.watch as module

    monkeypatch.setattr(module, "LOCAL_FILE_SYSTEMS", {})
    assert not watch.add(str(tmp_path))
    assert not watch.broken and not watch.refused and watch.folders == 0
