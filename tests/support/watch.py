"""Folder-watch helpers for the tests: whether this system has inotify, and a kernel that
refuses every folder (the user's limit of watches reached)."""

from __future__ import annotations

import ctypes
import errno
import tempfile

import pytest

from exobrain.util.watch import open_watch


def inotify_available() -> bool:
    """Whether this system gives a folder watch (Linux, inotify not refused) over the
    temporary folder the tests work in (a local file system)."""
    watch = open_watch()
    if watch is None:
        return False
    try:
        return watch.add(tempfile.gettempdir())
    finally:
        watch.close()


needs_inotify = pytest.mark.skipif(not inotify_available(), reason="no inotify here")


class LimitReached:
    """libc as the kernel answers once the user's limit of watches is reached."""

    def __init__(self) -> None:
        self.statfs = ctypes.CDLL(None).statfs

    def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
        ctypes.set_errno(errno.ENOSPC)
        return -1
