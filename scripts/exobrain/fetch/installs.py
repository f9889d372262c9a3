"""Installed external skills on disk: the install record, finding ours, swapping, cleaning up.

The toolkit may only replace or delete folders it created, and the proof is the install record
``.exobrain-source.json`` inside the folder (real folders only: a symlink is never ours to
delete here). A new copy is built in a temp folder beside the target and swapped in with one
atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux when the target exists), so a crash
leaves either the old or the new copy; leftover temp folders carry a fixed prefix and are
removed on the next run.
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.errors import InputFileError
from exobrain.util.fileio import atomic_write_text, dump_json, load_json

TOOL = "exobrain-skills"
TMP_PREFIX = ".exobrain-tmp-"
OLD_PREFIX = ".exobrain-old-"


@dataclass(frozen=True)
class InstallRecord:
    """What was installed, from where, at which commit, with which content hash."""

    name: str
    owner: str
    repo: str
    path: str
    ref: str
    ref_kind: str       # commit | tag | branch
    commit: str
    hash: str
    fetched_at: str
    exobrain: str       # the repository root that installed it (user-level folders are shared)
    tool: str = TOOL

    def as_json(self) -> dict:
        return asdict(self)


def read_record(folder: Path) -> InstallRecord | None:
    """The install record of ``folder`` when it is a real folder the toolkit installed."""
    path = folder / INSTALL_RECORD
    if folder.is_symlink() or not path.is_file() or path.is_symlink():
        return None
    try:
        data = load_json(path)
    except InputFileError:
        return None
    if not isinstance(data, dict) or data.get("tool") != TOOL:
        return None
    fields = InstallRecord.__dataclass_fields__
    if not all(isinstance(data.get(k), str) for k in fields):
        return None
    return InstallRecord(**{k: data[k] for k in fields})


def write_record(folder: Path, record: InstallRecord) -> None:
    atomic_write_text(folder / INSTALL_RECORD, dump_json(record.as_json()))


def scan(folder: Path) -> dict[str, InstallRecord]:
    """``{folder name: record}`` for every install of ours directly inside ``folder``."""
    found: dict[str, InstallRecord] = {}
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return found
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        record = read_record(Path(entry.path))
        if record is not None:
            found[entry.name] = record
    return found


def clean_leftovers(folder: Path) -> list[str]:
    """Remove temp folders an interrupted run left behind (our prefixes only)."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return removed
    for entry in entries:
        if entry.name.startswith((TMP_PREFIX, OLD_PREFIX)) and entry.is_dir(follow_symlinks=False):
            _rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
    return removed


def swap_in(new: Path, target: Path) -> None:
    """Make ``new`` (a finished copy beside ``target``) the installed folder, atomically."""
    if not target.exists() and not target.is_symlink():
        os.rename(new, target)
        return
    if _exchange(new, target):
        _rmtree(new)  # it now holds the previous install
        return
    old = new.with_name(OLD_PREFIX + new.name[len(TMP_PREFIX):])
    os.rename(target, old)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old, target)
        raise
    _rmtree(old)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step with Linux's renameat2; False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _rmtree(path, **kw) -> None:
    import shutil  # only runs that change something pay for it

    shutil.rmtree(path, **kw)


def remove_install(folder: Path) -> None:
    """Delete an install of ours (the caller has checked the record): first renamed aside in
    one step, so an interruption never leaves a half-deleted skill where an agent looks."""
    aside = folder.with_name(f"{OLD_PREFIX}{folder.name}-{os.getpid()}")
    os.rename(folder, aside)
    _rmtree(aside)
