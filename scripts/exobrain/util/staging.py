"""Build a folder aside, then rename it into place: the one way the toolkit writes a folder.

Importing, forking, picking, re-importing, exporting, fetching and create-instance all write a
whole folder that an agent, a registry or a person may look at while it is being written. So
each builds it in a hidden staging folder beside the target (same file system, so the final
step is one ``rename``) and either the complete folder appears or nothing does:

* a new target: one rename;
* an existing target (``replace=True``): swapped in one step with Linux's
  ``renameat2(RENAME_EXCHANGE)`` where available, else moved aside and back on failure; the old
  content is removed only after the new one is in place;
* an error or an interrupt: the staging folder is removed and the target is as it was.

The target's folder is made (or found) with :func:`~exobrain.util.fileio.make_folders`
inside the caller's ``root``, so a committed link such as ``people/alice/skills -> ~`` never
receives an imported or forked skill.

Staging and discarded folders carry fixed prefixes, so :func:`clean_leftovers` can remove what
a killed run left behind, and nothing else.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from exobrain.util.fileio import default_dir_mode, make_folders

TMP_PREFIX = ".exobrain-tmp-"
OLD_PREFIX = ".exobrain-old-"


@contextmanager
def staged_folder(
    target: Path, *, root: Path, replace: bool = False, empty_ok: bool = False
) -> Iterator[Path]:
    """Yield an empty staging folder (with the mode ``mkdir`` would give under the umask); when
    the block ends normally it becomes ``target``, whose folder must lie inside ``root``.

    ``target`` must not exist, unless ``replace`` (it is swapped out and removed) or
    ``empty_ok`` and it is an empty folder (it is removed first). ``FileExistsError`` otherwise.
    """
    target = make_folders(root, target.parent) / target.name
    staging = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{target.name}-", dir=target.parent))
    try:
        os.chmod(staging, default_dir_mode())
        yield staging
        move_in(staging, target, replace=replace, empty_ok=empty_ok)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


@contextmanager
def staged_file(target: Path, *, root: Path) -> Iterator[Path]:
    """Yield a path beside ``target`` (whose folder must lie inside ``root``) to write a file
    to; when the block ends normally the file is renamed to ``target`` (with the mode a new
    file gets under the umask)."""
    target = make_folders(root, target.parent) / target.name
    handle, name = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{target.name}-", dir=target.parent)
    os.close(handle)
    temp = Path(name)
    try:
        yield temp
        os.chmod(temp, default_dir_mode() & 0o666)
        os.rename(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def move_in(new: Path, target: Path, *, replace: bool = False, empty_ok: bool = False) -> None:
    """Make the finished folder ``new`` (beside ``target``) the folder at ``target``."""
    if empty_ok and target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
        target.rmdir()
    if not target.exists() and not target.is_symlink():
        os.rename(new, target)
        return
    if not replace:
        raise FileExistsError(errno.EEXIST, "already exists", str(target))
    if _exchange(new, target):
        shutil.rmtree(new)  # it now holds the previous content
        return
    old = new.with_name(OLD_PREFIX + new.name.removeprefix(TMP_PREFIX))
    os.rename(target, old)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step with Linux's renameat2; False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def discard_folder(folder: Path) -> None:
    """Delete a folder the caller owns: first renamed aside in one step, so an interruption
    never leaves a half-deleted folder where someone looks."""
    aside = folder.with_name(f"{OLD_PREFIX}{folder.name}-{os.getpid()}")
    os.rename(folder, aside)
    shutil.rmtree(aside)


def is_leftover(name: str, target: str = "") -> bool:
    """Whether ``name`` is a staging or discarded folder's (of the folder ``target``, when
    given): never part of anything, only what an interrupted run left."""
    return name.startswith((TMP_PREFIX + target, OLD_PREFIX + target))


def clean_leftovers(folder: Path, target: str = "") -> list[str]:
    """Remove the staging and discarded folders an interrupted run left in ``folder`` (our
    prefixes only; with ``target``, only those made for the folder of that name); the names
    removed."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return removed
    prefix = f"{target}-" if target else ""
    for entry in entries:
        if is_leftover(entry.name, prefix) and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
    return removed
