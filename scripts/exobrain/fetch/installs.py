"""Installed external skills on disk: the install record and finding ours.

The toolkit may only replace or delete folders it created. The install record
``.exobrain-source.json`` inside a folder says what an install is (real folders only: a
symlink is never ours to delete here); the folder's ownership record
(:mod:`exobrain.util.ownership`) says which installs this exobrain made there, so a user's copy
of an install — it carries the install record too — is never taken for one. Installs are built
aside and swapped in by :mod:`exobrain.util.staging`, so a crash leaves either the old or the
new copy.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from exobrain.agents import optional_dir
from exobrain.errors import InputFileError
from exobrain.paths import owned_records
from exobrain.util import ownership
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.util.fileio import atomic_write_text, dump_json, load_json

TOOL = "exobrain-skills"
#: What the original bash implementation left in each install instead of a record: a one-line
#: file holding the ref it fetched.
BASH_INSTALL_MARK = ".source-ref"


@dataclass(frozen=True)
class InstallRecord:
    """What was installed, from where, at which commit, with which content hash."""

    name: str
    owner: str
    repo: str
    path: str
    ref: str
    ref_kind: str  # commit | tag | branch
    commit: str
    hash: str
    fetched_at: str
    exobrain: str  # the repository root that installed it (user-level folders are shared)
    tool: str = TOOL

    def as_json(self) -> dict[str, Any]:
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


def write_record(folder: Path, record: InstallRecord, *, root: Path) -> None:
    """Write the install record into ``folder`` (which must lie inside ``root``)."""
    atomic_write_text(folder / INSTALL_RECORD, dump_json(record.as_json()), root=root)


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


def may_hold_installs(skills_dir: Path) -> bool:
    """Whether the fetcher may have something to prune here (a skills-optional/ folder, or a
    folder with an install record), so a connect without external rows still cleans up."""
    if optional_dir(skills_dir).is_dir():
        return True
    try:
        with os.scandir(skills_dir) as entries:
            return any(
                e.is_dir(follow_symlinks=False)
                and os.path.exists(os.path.join(e.path, INSTALL_RECORD))
                for e in entries
            )
    except OSError:
        return False


def is_bash_install(folder: Path) -> bool:
    """Whether ``folder`` is an install of the original bash implementation: a real folder
    with its ``.source-ref`` and a ``SKILL.md``, and no install record of ours."""
    mark = folder / BASH_INSTALL_MARK
    return (
        not folder.is_symlink()
        and mark.is_file()
        and not mark.is_symlink()
        and (folder / "SKILL.md").is_file()
        and not (folder / INSTALL_RECORD).exists()
    )


def bash_installs(place: Path) -> set[str]:
    """The names of the bash implementation's installs directly inside ``place``."""
    try:
        entries = list(os.scandir(place))
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {
        e.name
        for e in entries
        if "." in e.name.strip(".")
        and e.is_dir(follow_symlinks=False)
        and is_bash_install(Path(e.path))
    }


def ours(place: Path, root: Path) -> set[str]:
    """The installs the exobrain at ``root`` made in ``place``, by its ownership record; with
    no record yet (installs an earlier version made), those it would have made: a real folder
    whose install record names this exobrain and whose name is exactly ``<name>.<owner>`` of
    that record, and the bash implementation's installs (``<name>.<owner>`` with its
    ``.source-ref``), which a fetch of that skill replaces. A user's copy under another name
    is never adopted."""
    mine = ownership.load(owned_records(), place).mine(ownership.INSTALLS, root)
    if mine is not None:
        return set(mine)
    return bash_installs(place) | {
        name
        for name, record in scan(place).items()
        if record.exobrain == str(root) and name == f"{record.name}.{record.owner}"
    }


def record_ours(place: Path, root: Path, names: set[str]) -> None:
    """Write down which installs in ``place`` are ours now (those still there, with their
    install record, or still the bash implementation's install that a fetch will replace)."""
    present = {
        name
        for name in names
        if read_record(place / name) is not None or is_bash_install(place / name)
    }
    ownership.record(owned_records(), place, ownership.INSTALLS, root, dict.fromkeys(present, ""))
