"""Local sources: where a skill imported from this machine's own files came from, kept on this
machine and never in the lock.

A skill imported from a folder, a ``.skill``/``.zip`` archive or a repository reached through
the file system (a path, ``file://``) came from something only this machine holds. The lock
is committed, so what it says is anyone's to write: a lock naming ``/home/you/notes`` as an
upstream would make every member's ``import --update --all`` (the weekly ``crons.json`` job
included) copy that folder of *their* machine, ``creds.env`` and all, into a shared scope.

So the lock's record of a local source names no place: its ``url`` is ``local`` (the
kind, the path inside and the hashes stay, as for any upstream), and its ``source_url`` is a
label. Where it really was is remembered here, per machine, in
``$XDG_STATE_HOME/exobrain/local-sources.json``::

    {"version": 1, "repositories": {"/abs/exobrain": {"people/al/skills/notes":
        {"kind": "folder", "url": "/home/al/notes"}}}}

An update follows a local source only through this file, for the repository and the skill it
was imported into here; a committed record that names a folder, an archive or a local
repository itself is never followed. Elsewhere (another machine, a moved clone, a lock made
before this rule) the update asks for the source: ``exobrain import --update NAME SOURCE``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from exobrain.caches import LOCAL_SOURCES
from exobrain.errors import InputFileError
from exobrain.interop.inputs import ARCHIVE, FOLDER, GIT, Opened
from exobrain.paths import user_state_dir
from exobrain.util.fileio import load_json
from exobrain.util.jsonfile import update_json_file

FORMAT = 1
KINDS = (FOLDER, ARCHIVE, GIT)


def store_file() -> Path:
    return user_state_dir() / LOCAL_SOURCES.folder


def _check(data: Any) -> None:
    """The shape of the file; anything else is refused, never rewritten."""
    repositories = data.get("repositories") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("version") != FORMAT
        or not isinstance(repositories, dict)
        or not all(isinstance(skills, dict) for skills in repositories.values())
    ):
        raise InputFileError(
            f'{store_file()}: expected {{"version": {FORMAT}, "repositories": {{…}}}}',
            hint="move the file away: the next import from a local source writes a new one",
        )


def _empty() -> dict[str, Any]:
    return {"version": FORMAT, "repositories": {}}


def remember(root: Path, folder: Path, src: Opened) -> None:
    """Keep where the skill in ``folder`` of the repository at ``root`` came from, when
    ``src`` is a local source (nothing otherwise)."""
    if not src.local:
        return
    key = folder.relative_to(root).as_posix()
    store = store_file()
    store.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with update_json_file(store, root=user_state_dir(), default=_empty, check=_check) as update:
        skills = update.data["repositories"].setdefault(os.path.realpath(root), {})
        skills[key] = {"kind": src.kind, "url": src.url}


def recall(root: Path, folder: Path) -> tuple[str, str] | None:
    """(kind, url) of the local source the skill in ``folder`` was imported from into the
    repository at ``root`` on this machine; None when this machine has no such record."""
    store = store_file()
    if not os.path.lexists(store):
        return None
    data = load_json(store)
    _check(data)
    key = folder.relative_to(root).as_posix()
    found = data["repositories"].get(os.path.realpath(root), {}).get(key)
    if (
        isinstance(found, dict)
        and found.get("kind") in KINDS
        and isinstance(found.get("url"), str)
        and os.path.isabs(found["url"].removeprefix("file://"))
    ):
        return found["kind"], found["url"]
    return None
