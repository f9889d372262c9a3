"""Installed external skills on disk: the install record and finding ours.

The toolkit may only replace or delete folders it created, and the proof is the install record
``.exobrain-source.json`` inside the folder (real folders only: a symlink is never ours to
delete here). Installs are built aside and swapped in by :mod:`exobrain.util.staging`, so a
crash leaves either the old or the new copy.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from exobrain.errors import InputFileError
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.util.fileio import atomic_write_text, dump_json, load_json

TOOL = "exobrain-skills"


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
