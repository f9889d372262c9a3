"""The lock files of vercel's ``skills`` CLI (``npx skills``), read and written as pure data.

The tool keeps two: the project's ``skills-lock.json`` (version 1: per skill ``source``,
``sourceType``, optional ``sourceUrl``, ``ref`` and ``skillPath``, and ``computedHash``, its
hash of the installed folder) and the user's ``~/.agents/.skill-lock.json`` (version 3, or
under ``$XDG_STATE_HOME/skills/`` when that is set: the same fields, the hash as
``skillFolderHash``, plus install and update times). Neither records a commit.

Both files are someone else's, so reading is bounded and checked entry by entry: a broken
entry becomes a :class:`LockProblem` naming it, the others are still read. Samples the tool
wrote are in tests/fixtures/adopt/.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_LOCK = "skills-lock.json"
USER_LOCK = ".skill-lock.json"
PROJECT_VERSION = 1
USER_VERSION = 3
#: Source types the tool writes; github, gitlab and git name a git repository.
SOURCE_TYPES = ("github", "gitlab", "git", "local", "well-known", "node_modules")
GIT_TYPES = ("github", "gitlab", "git")
MAX_ENTRIES = 5000
MAX_TEXT = 2048
_HEX = re.compile(r"^[0-9a-f]{40,64}\Z")
_SKIPPED = frozenset({".git", "node_modules"})


@dataclass(frozen=True)
class LockEntry:
    """One skill of a lock: where the tool took it from and its hash of the folder."""

    name: str
    source: str
    source_type: str
    source_url: str | None = None
    ref: str | None = None
    skill_path: str | None = None  # the SKILL.md inside the source ("skills/x/SKILL.md")
    hash: str = ""


@dataclass(frozen=True)
class LockProblem:
    """An entry (or the whole file, ``name`` None) that cannot be used, and why."""

    name: str | None
    why: str


def _text(value: Any, key: str, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise ValueError(f"{key} must be {'a non-empty ' if required else 'a '}string")
    if len(value) > MAX_TEXT or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise ValueError(f"{key} is over {MAX_TEXT} characters or holds control characters")
    return value


def _entry(name: str, raw: Any, hash_key: str) -> LockEntry:
    if not isinstance(raw, dict):
        raise ValueError("must be an object")
    kind = _text(raw.get("sourceType"), "sourceType", required=True)
    if kind not in SOURCE_TYPES:
        raise ValueError(f"sourceType {kind!r} is not one of {', '.join(SOURCE_TYPES)}")
    path = _text(raw.get("skillPath"), "skillPath")
    if path is not None and (
        path.startswith("/") or ".." in path.split("/") or not path.endswith("SKILL.md")
    ):
        raise ValueError(f"skillPath {path!r} must be a relative path to a SKILL.md without '..'")
    digest = _text(raw.get(hash_key), hash_key) or ""
    if digest and not _HEX.match(digest):
        raise ValueError(f"{hash_key} must be a hexadecimal digest")
    return LockEntry(
        name,
        str(_text(raw.get("source"), "source", required=True)),
        kind,
        _text(raw.get("sourceUrl"), "sourceUrl"),
        _text(raw.get("ref"), "ref") or None,
        path,
        digest,
    )


def read_lock(data: Any, *, user: bool = False) -> tuple[dict[str, LockEntry], list[LockProblem]]:
    """The entries of a parsed lock (the project's, or with ``user`` the user's), and the
    problems of the entries (or of the file) that cannot be used."""
    version = USER_VERSION if user else PROJECT_VERSION
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        return {}, [LockProblem(None, 'expected an object with a "skills" object')]
    found = data.get("version")
    if isinstance(found, bool) or not isinstance(found, int) or found < version:
        return {}, [LockProblem(None, f"version {found!r}: this reader knows version {version}")]
    skills = data["skills"]
    if len(skills) > MAX_ENTRIES:
        return {}, [LockProblem(None, f"{len(skills)} skills, over the cap of {MAX_ENTRIES}")]
    entries: dict[str, LockEntry] = {}
    problems: list[LockProblem] = []
    for name, raw in skills.items():
        try:
            _text(name, "the skill name", required=True)
            entries[name] = _entry(name, raw, "skillFolderHash" if user else "computedHash")
        except ValueError as exc:
            problems.append(LockProblem(str(name)[:80], str(exc)))
    return entries, problems


def project_lock_text(entries: list[LockEntry]) -> str:
    """A project ``skills-lock.json`` as the tool writes it: skills sorted by name, two-space
    indentation, a final newline."""
    skills: dict[str, dict[str, str]] = {}
    for entry in sorted(entries, key=lambda e: e.name):
        item = {"source": entry.source}
        if entry.source_url:
            item["sourceUrl"] = entry.source_url
        if entry.ref:
            item["ref"] = entry.ref
        item["sourceType"] = entry.source_type
        if entry.skill_path:
            item["skillPath"] = entry.skill_path
        item["computedHash"] = entry.hash
        skills[entry.name] = item
    lock = {"version": PROJECT_VERSION, "skills": skills}
    return json.dumps(lock, indent=2, ensure_ascii=False) + "\n"


def _order(rel: str) -> tuple[str, str]:
    """Close to the tool's ``localeCompare`` order of paths: case-insensitive first (lower
    case before upper on a tie), punctuation before digits before letters."""
    folded = unicodedata.normalize("NFKD", rel).lower()
    return "".join(c if c.isalnum() else "\0" + c for c in folded), rel.swapcase()


def folder_hash(folder: Path) -> str:
    """The tool's hash of a skill folder: sha256 over each regular file's POSIX path then its
    bytes, in path order (``.git`` and ``node_modules`` left out, links not followed)."""
    files: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in _SKIPPED]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                files.append((path.relative_to(folder).as_posix(), path))
    digest = hashlib.sha256()
    for rel, path in sorted(files, key=lambda item: _order(item[0])):
        digest.update(rel.encode("utf-8"))
        digest.update(path.read_bytes())
    return digest.hexdigest()
