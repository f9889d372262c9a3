"""The one file lock: an exclusive ``flock`` taken with a timeout, checked against replacement.

Every writer that must not interleave with another process goes through here: the registry
editor (a lock file next to ``skills.json``), ledger appends (the ledger itself, because
compaction swaps it for a new file), the connection file, and the fetcher's cache
repositories. Why our own module and not the ``filelock`` package: the ledger must lock the
file it appends to and notice when compaction replaced it (the same inode check a lock file
needs when its previous holder removed it), which ``filelock`` does not do; and this is
thirty lines with no import cost on the read-only commands.

The kernel drops ``flock`` locks with the process that held them, so a killed writer never
leaves anything locked; at worst an empty lock file stays behind and the next writer reuses it.

Lock files and ledgers are the toolkit's own, so they are never followed: the folder is
resolved inside the caller's root (:mod:`exobrain.util.confine`) and the file is opened with
``O_NOFOLLOW`` and ``O_NONBLOCK`` and checked to be a regular file. A committed
``skills.json.flock`` link to ``~/.bashrc`` is refused, not created or appended through.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from exobrain.errors import OperationFailed
from exobrain.util.confine import UnsafePath, resolve_inside, special_kind

DEFAULT_TIMEOUT = 10.0
#: The file a writer holds its lock on, beside the file it guards: ``skills.json.flock``.
#: Not ``.lock``, which would read like ``skills.lock.json``, the registry's lock of versions.
LOCK_SUFFIX = ".flock"


def lock_fd(
    path: Path,
    flags: int,
    timeout: float,
    what: str,
    *,
    root: Path,
    subject: Path | None = None,
) -> int:
    """Open ``path`` (inside ``root``, never through a link) with ``flags`` (``O_CREAT``
    included) and hold an exclusive lock on it.

    The folder must resolve inside ``root`` and ``path`` itself must be a regular file or
    missing: a link or a special file there raises :class:`~exobrain.util.confine.UnsafePath`.
    When the lock is won, the file must still be the one at ``path``: a holder before us may
    have removed or replaced it, and then the new file is locked instead. Past ``timeout``
    seconds of waiting this raises, naming the ``subject`` file (default: ``path``) and
    ``what`` is being waited for.
    """
    path = resolve_inside(root, path.parent) / path.name
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        fd = _open_own(path, flags)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise OperationFailed(
                        f"{subject or path}: another process kept {what} locked for over "
                        f"{timeout:g}s",
                        hint="wait for the other exobrain command to finish, then retry",
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        if _same_file(fd, path):
            return fd
        os.close(fd)


def _open_own(path: Path, flags: int) -> int:
    """Open a file of ours: never through a link, never waiting on a FIFO, regular only."""
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise UnsafePath(
                f"{path}: is a symbolic link (→ {os.readlink(path)}); the toolkit's own "
                f"files are never followed, nothing was written",
                hint=f"remove the link {path}, then rerun",
            ) from exc
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise UnsafePath(f"{path}: is a FIFO, not a regular file; nothing was written") from exc
        raise OperationFailed(
            f"{path}: cannot open ({exc.strerror or exc})",
            hint="check that the folder exists and is writable",
        ) from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafePath(f"{path}: is {special_kind(mode) or 'a folder'}, not a regular file")
    return fd


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


@contextmanager
def exclusive(
    path: Path, timeout: float = DEFAULT_TIMEOUT, *, root: Path, remove: bool = True
) -> Iterator[None]:
    """Hold the lock file ``<path>.flock`` (inside ``root``) for the duration of the block.

    ``remove`` deletes the lock file on release (safe: a waiter checks it locked the file still
    at the path); keep it for long-lived shared locks such as a cache repository's.
    """
    lock_path = path.with_name(path.name + LOCK_SUFFIX)
    fd = lock_fd(lock_path, os.O_RDWR, timeout, lock_path.name, root=root, subject=path)
    try:
        yield
    finally:
        if remove:
            try:
                os.unlink(lock_path)
            except FileNotFoundError:
                pass
        os.close(fd)
