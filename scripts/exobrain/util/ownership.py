"""Ownership by record: what the toolkit created in a folder it shares with its user.

connect-agent and the fetcher write into folders where the user keeps things of their own
(``.claude/skills``, ``~/.codex/skills``): links, copies, folders. Guessing what is ours from
what a thing looks like (a link into the repository, a folder carrying an install record)
deleted a user's ``my-alias`` link and a user's copy of an install. So each folder gets a
record of exactly what was created there — link names with the text they were created with,
install folder names — and only what the record lists (and the disk still matches) is ever
replaced or removed.

The record lives in the user's state folder (``$XDG_STATE_HOME/exobrain/owned/``, one JSON
file per folder, named by a hash of the folder's real path), not in the folder itself: a record
inside a repository could be committed by anyone and would then claim the user's links. It is
written atomically under a lock, and keeps each exobrain's (repository root's) entries apart,
since a user-level folder is shared by every exobrain the user connects.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, OperationFailed
from exobrain.util.fileio import atomic_write_text, dump_json, read_text
from exobrain.util.locking import exclusive

TOOL = "exobrain-skills"
RECORD_VERSION = 1  # (exobrain.caches.OWNED.version: util imports no core module)
LINKS, INSTALLS = "links", "installs"
#: entries of an agent's settings file (Claude's ``skillOverrides``): name → the value written
SETTINGS = "settings"


@dataclass
class Owned:
    """One folder's record: ``entries[kind][exobrain][name]`` is what that exobrain created
    there (kind ``links``: the link text; ``installs``: an empty string). An exobrain with no
    entry for a kind has never recorded it here: the first run under a version that keeps
    records, when what an earlier version made is adopted."""

    folder: str
    entries: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    def mine(self, kind: str, exobrain: Path) -> dict[str, str] | None:
        """``{name: value}`` of what ``exobrain`` created here, or None when it never said."""
        found = self.entries.get(kind, {}).get(str(exobrain))
        return None if found is None else dict(found)

    def set_mine(self, kind: str, exobrain: Path, values: dict[str, str]) -> None:
        """Make ``values`` what ``exobrain`` created here (other exobrains' entries kept)."""
        self.entries.setdefault(kind, {})[str(exobrain)] = dict(sorted(values.items()))

    def as_json(self) -> dict[str, Any]:
        return {"tool": TOOL, "version": RECORD_VERSION, "folder": self.folder, **self.entries}


def record_path(records: Path, folder: Path) -> Path:
    """Where the record of ``folder`` lives in the ``records`` folder."""
    real = os.path.realpath(folder).encode("utf-8", "surrogateescape")
    return records / f"{hashlib.sha256(real).hexdigest()[:24]}.json"


def load(records: Path, folder: Path) -> Owned:
    """The record of ``folder`` (an empty one when there is none). A record that does not
    parse, or belongs to another folder, is read as empty: nothing in it is trusted."""
    real = os.path.realpath(folder)
    owned = Owned(real)
    try:
        data = json.loads(read_text(record_path(records, folder)))
    except (InputFileError, ValueError, RecursionError):
        return owned
    if not isinstance(data, dict) or data.get("tool") != TOOL or data.get("folder") != real:
        return owned
    for kind in (LINKS, INSTALLS, SETTINGS):
        by_exobrain = data.get(kind)
        if not isinstance(by_exobrain, dict):
            continue
        owned.entries[kind] = {
            str(exobrain): {str(k): v for k, v in items.items() if isinstance(v, str)}
            for exobrain, items in by_exobrain.items()
            if isinstance(items, dict)
        }
    return owned


def record(records: Path, folder: Path, kind: str, exobrain: Path, values: dict[str, str]) -> None:
    """Make ``values`` the ``kind`` entries ``exobrain`` owns in ``folder``'s record. Nothing is
    written (not even a lock file) when the record already says so; otherwise the record is
    re-read under its lock and written back atomically, inside ``records``."""
    if load(records, folder).mine(kind, exobrain) == values:
        return
    path = record_path(records, folder)
    try:
        records.mkdir(parents=True, exist_ok=True)
        with exclusive(path, root=records):
            owned = load(records, folder)
            owned.set_mine(kind, exobrain, values)
            atomic_write_text(path, dump_json(owned.as_json()), root=records)
    except OSError as exc:
        raise OperationFailed(
            f"{path}: cannot write the ownership record of {folder} ({exc.strerror or exc})",
            hint=f"make {records} writable, then rerun",
        ) from exc
