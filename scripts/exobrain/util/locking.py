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
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from exobrain.errors import OperationFailed

DEFAULT_TIMEOUT = 10.0
LOCK_SUFFIX = ".lock"


def lock_fd(path: Path, flags: int, timeout: float, what: str, subject: Path | None = None) -> int:
    """Open ``path`` with ``flags`` (``O_CREAT`` included) and hold an exclusive lock on it.

    When the lock is won, the file must still be the one at ``path``: a holder before us may
    have removed or replaced it, and then the new file is locked instead. Past ``timeout``
    seconds of waiting this raises, naming the ``subject`` file (default: ``path``) and
    ``what`` is being waited for.
    """
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fd = os.open(path, flags | os.O_CREAT, 0o644)
        except OSError as exc:
            raise OperationFailed(
                f"{path}: cannot open the lock ({exc.strerror or exc})",
                hint="check that the folder exists and is writable",
            ) from exc
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


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


@contextmanager
def exclusive(
    path: Path, timeout: float = DEFAULT_TIMEOUT, *, remove: bool = True
) -> Iterator[None]:
    """Hold the lock file ``<path>.lock`` for the duration of the block.

    ``remove`` deletes the lock file on release (safe: a waiter checks it locked the file still
    at the path); keep it for long-lived shared locks such as a cache repository's.
    """
    lock_path = path.with_name(path.name + LOCK_SUFFIX)
    fd = lock_fd(lock_path, os.O_RDWR, timeout, lock_path.name, subject=path)
    try:
        yield
    finally:
        if remove:
            try:
                os.unlink(lock_path)
            except FileNotFoundError:
                pass
        os.close(fd)
