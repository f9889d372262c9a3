"""Being told that a folder changed instead of asking every file (Linux ``inotify``).

A process that answers many queries from files it read once (the MCP server's kept-open
search) must not miss an edit between two queries. Asking each file (``stat``) costs one
system call per file; with 8,000 skills that is 30 ms per query on a small VM, more than
the rest of the query. git meets the same wall on big work trees and answers it with a file
system monitor (``core.fsmonitor``); this is the same idea at the scale of one process and
with nothing to install: the kernel queues an event for every entry created, removed,
renamed, written or touched directly inside a watched folder, and a query that finds the
queue empty knows that nothing it watched changed.

Only folders on a file system whose every change passes through this kernel are watched
(:data:`LOCAL_FILE_SYSTEMS`): a network or FUSE file system (NFS home folders, a container's
mount of its host's folder) can change behind the kernel's back, so its files are asked every
time, as git's fsmonitor refuses network mounts by default.

The watch only ever says "something changed" or "nothing changed since you last asked"; what
changed is found out the ordinary way (``stat``). It is an optimisation that can only be
absent, never wrong: :func:`open_watch` gives None off Linux or when the kernel refuses, and a
watch that overflows its queue or loses a folder (removed, renamed) is
:attr:`FolderWatch.broken` for good: its owner asks every file again, and may start a new
watch, unless the kernel refused a folder (:attr:`FolderWatch.refused`: the user's limit of
watches is reached, so a new watch would fare no better).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
import weakref

# from <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x002, 0x004, 0x008
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x040, 0x080, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF = 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ONLYDIR = 0x4000, 0x8000, 0x01000000
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000

#: Every way a file directly inside a folder, or the folder itself, can change.
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
)
#: The folder itself went away or the queue lost events: nothing can be trusted any more.
_LOST = _IN_Q_OVERFLOW | _IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (a name of len bytes follows)
_READ_SIZE = 64 << 10

#: ``f_type`` of statfs(2) for the local file systems a watch trusts (from <linux/magic.h>).
LOCAL_FILE_SYSTEMS = {
    0xEF53: "ext2/3/4",
    0x58465342: "xfs",
    0x9123683E: "btrfs",
    0xF2F52010: "f2fs",
    0x2FC12FC1: "zfs",
    0x01021994: "tmpfs",
    0x794C7630: "overlayfs",
}
_STATFS_SIZE = 512  # more than struct statfs takes anywhere; f_type is its first member


class FolderWatch:
    """One inotify instance over a growing set of folders. Not thread-safe."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._folders: set[str] = set()
        self.broken = False
        self.refused = False  # the kernel refused a folder: a new watch would fare no better
        self._statfs = ctypes.create_string_buffer(_STATFS_SIZE)
        self._closer = weakref.finalize(self, os.close, fd)

    def add(self, folder: str) -> bool:
        """Watch ``folder`` (already watched: nothing to do); call before reading what is
        inside, never after. False when it cannot be watched (then trust nothing read there):
        it is not a folder, it is not on a local file system, or the user's limit of watches
        is reached (then the watch is broken and :attr:`refused`)."""
        if self.broken:
            return False
        if folder in self._folders:
            return True
        path = os.fsencode(folder)
        if not self._local(path):
            return False
        wd = self._libc.inotify_add_watch(self._fd, path, _MASK)
        if wd < 0:
            if ctypes.get_errno() in (errno.ENOSPC, errno.ENOMEM):
                self.refused = True
                self.close()
            return False
        self._folders.add(folder)
        return True

    def _local(self, path: bytes) -> bool:
        """Whether ``path`` lies on a file system of :data:`LOCAL_FILE_SYSTEMS`."""
        if self._libc.statfs(path, self._statfs) != 0:
            return False
        return ctypes.c_long.from_buffer(self._statfs).value in LOCAL_FILE_SYSTEMS

    def quiet(self) -> bool:
        """Take every queued event: True when there was none (nothing inside any watched
        folder changed since the previous call). An event that means events were lost or a
        folder is no longer watched breaks the watch."""
        if self.broken:
            return False
        events = False
        while True:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return not events
            except OSError:
                self.close()
                return False
            events = True
            offset = 0
            while offset < len(data):
                _wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + size
                if mask & _LOST:
                    self.close()
                    return False

    @property
    def folders(self) -> int:
        """How many folders are watched."""
        return len(self._folders)

    def close(self) -> None:
        """Stop watching (for good: the watch is broken from now on)."""
        self.broken = True
        self._folders.clear()
        self._closer()


def open_watch() -> FolderWatch | None:
    """A new, empty watch; None where inotify is not available (not Linux, or the user's limit
    of instances is reached)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        init = libc.inotify_init1
    except (OSError, AttributeError):
        return None
    fd = init(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    libc.inotify_add_watch.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
    libc.statfs.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
    return FolderWatch(libc, fd)
