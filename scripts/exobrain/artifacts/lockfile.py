"""``skills.lock.json``: the version, content hash and per-file digests of each skill, beside
each ``skills.json``.

The lock is what makes a skill a versioned artifact in plain files: git keeps the history, the
lock says which content a version number stands for. Content that changed while the version
did not, or a version that went backwards, is an error (``version_bumped``).

Format (keys sorted, one file per registry)::

    {"lock_version": 1,
     "skills": {"<name>": {"version": "1.2.0", "hash": "h1:…",
                           "files": {"SKILL.md": "<sha256>", …},
                           "powers": ["tool_wildcards"],   # optional, see below
                           "upstream": {…}}}}      # optional, for imported skills

``powers`` records the powers a skill gives an agent (hooks, wildcard tool permissions; see
:func:`exobrain.skillmd.powers`) that someone saw and accepted: ``exobrain import`` reports them
and records them, ``import --update`` and ``register`` record what the new content has, a fork
keeps what its origin recorded. skills-validate then warns only about a power nobody recorded
(a policy of ``refuse`` is an error either way). The record is a line in a reviewed commit, like
the rest of the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.model import GLOBAL
from exobrain.skillmd import powers
from exobrain.util.dirhash import file_digests, hash_digests
from exobrain.util.fileio import load_json
from exobrain.util.jsonfile import update_json_file
from exobrain.util.versions import parse as parse_version

LOCK_FILE = "skills.lock.json"
LOCK_VERSION = 1


def lock_path(root: Path, scope: str) -> Path:
    return (root if scope == GLOBAL else root / scope) / LOCK_FILE


def empty_lock() -> dict[str, Any]:
    return {"lock_version": LOCK_VERSION, "skills": {}}


def check_lock_data(data: Any, path: Path | None = None) -> None:
    """Refuse a lock document of the wrong shape (named by file and skill)."""
    where = f"{path}: " if path else ""
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise InputFileError(
            f'{where}expected {{"lock_version": 1, "skills": {{…}}}}',
            hint="delete the file and run exobrain lock to rebuild it",
        )
    for name, item in data["skills"].items():
        if not (
            isinstance(item, dict)
            and isinstance(item.get("hash"), str)
            and isinstance(item.get("files"), dict)
            and isinstance(item.get("version"), str)
        ):
            raise InputFileError(
                f"{where}skills.{name}: needs version, hash and files",
                hint="run exobrain lock to rebuild the entry",
            )


def read_lock(root: Path, scope: str) -> dict[str, Any]:
    """The lock of a scope (empty when there is none)."""
    path = lock_path(root, scope)
    if not path.exists():
        return empty_lock()
    data: dict[str, Any] = load_json(path)
    check_lock_data(data, path)
    return data


#: How a new lock entry meets the one it replaces (``previous`` None: there was none).
Merge = Callable[[dict[str, Any] | None, dict[str, Any]], dict[str, Any]]


def kept_beside(previous: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """``entry``, with every other key of the previous entry kept (an imported skill's
    ``upstream``, its ``powers``): for a lock entry made again from unchanged content."""
    return {**entry, **{k: v for k, v in (previous or {}).items() if k not in entry}}


def replaced(previous: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` alone: a skill that is new at this name (an import, a fork, a pick)."""
    return entry


def update_lock(
    root: Path,
    scope: str,
    changes: Mapping[str, dict[str, Any] | None],
    *,
    merge: Merge = kept_beside,
) -> bool:
    """Set (an entry) or drop (None) the named lock entries of ``scope`` under the lock file's
    lock, each entry set as ``merge`` makes it of the previous one; the file is written
    sorted, only when it changed, and not created just to drop entries. The one writer of
    ``skills.lock.json`` entries. Returns True when it was written."""
    path = lock_path(root, scope)
    if not path.exists() and all(entry is None for entry in changes.values()):
        return False
    with update_json_file(
        path, root=root, default=empty_lock, check=check_lock_data, durable=False
    ) as update:
        skills = update.data["skills"]
        for name, entry in changes.items():
            if entry is None:
                skills.pop(name, None)
            else:
                skills[name] = merge(skills.get(name), entry)
        update.data["skills"] = dict(sorted(skills.items()))
    return update.written


def lock_entry(folder: Path, version: str) -> dict[str, Any]:
    """A fresh lock entry for the skill folder at ``version``."""
    digests = file_digests(folder)
    return {
        "version": version,
        "hash": hash_digests(digests),
        "files": dict(sorted(digests.items())),
    }


def with_powers(entry: dict[str, Any], rules: Iterable[str]) -> dict[str, Any]:
    """``entry`` recording the powers (policy rules) someone saw and accepted (none: no key)."""
    seen = sorted(set(rules))
    return {**entry, "powers": seen} if seen else entry


def powers_of(meta: dict[str, Any]) -> list[str]:
    """The policy rules of the powers a skill's frontmatter gives an agent."""
    return [rule for rule, _ in powers(meta)]


def recorded_powers(locked: dict[str, Any] | None) -> set[str]:
    """The powers a lock entry records as seen and accepted (nothing for a malformed value)."""
    value = (locked or {}).get("powers")
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def renewed(previous: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """A rewritten lock entry: ``entry``, plus what the previous one held that ``entry`` does
    not speak about — except ``powers``, which always describes the new content."""
    kept = {k: v for k, v in (previous or {}).items() if k not in entry and k != "powers"}
    return {**entry, **kept}


@dataclass(frozen=True)
class Drift:
    """How a skill folder differs from its lock entry."""

    changed: list[str]
    added: list[str]
    removed: list[str]
    hash: str

    @property
    def any(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def describe(self) -> str:
        parts = [
            f"changed {', '.join(self.changed)}" if self.changed else "",
            f"added {', '.join(self.added)}" if self.added else "",
            f"removed {', '.join(self.removed)}" if self.removed else "",
        ]
        return "; ".join(p for p in parts if p)


def drift(folder: Path, locked: dict[str, Any]) -> Drift:
    """Compare a folder's files with a lock entry."""
    return drift_of(file_digests(folder), locked)


def drift_of(digests: dict[str, str], locked: dict[str, Any]) -> Drift:
    """Compare a folder's file digests (:func:`~exobrain.util.dirhash.file_digests`) with a
    lock entry."""
    old: dict[str, str] = locked.get("files", {})
    return Drift(
        changed=sorted(p for p in digests if p in old and old[p] != digests[p]),
        added=sorted(p for p in digests if p not in old),
        removed=sorted(p for p in old if p not in digests),
        hash=hash_digests(digests),
    )


def version_problem(
    current: str | None, locked: dict[str, Any], folder_drift: Drift, folder: str = "PATH"
) -> str | None:
    """Why the folder (``folder`` as the fix names it) and its version do not agree with the
    lock, or None."""
    if current is None:
        return "the lock records a version but SKILL.md has none; restore 'version:'"
    try:
        now, then = parse_version(current), parse_version(locked["version"])
    except Exception:
        return None
    if now < then:
        return (
            f"version {current} is lower than the locked {locked['version']}; versions "
            f"never go backwards"
        )
    if now == then and folder_drift.any:
        return (
            f"content changed but version is still {current} ({folder_drift.describe()}); "
            f"bump it: exobrain register {folder} --bump patch"
        )
    return None


def lock_state(digests: dict[str, str], version: str | None, locked: Any) -> dict[str, Any]:
    """A skill's standing against its lock entry, for people to read: ``state`` is
    ``locked`` (content and version as locked), ``drifted`` (files changed since; the files
    are named), ``version differs`` (same files, another version) or ``not locked``."""
    if not isinstance(locked, dict) or "hash" not in locked:
        return {"state": "not locked"}
    found = drift_of(digests, locked)
    facts: dict[str, Any] = {"locked version": locked.get("version"), "hash": locked["hash"]}
    if found.any:
        return {"state": "drifted", **facts, "changes": found.describe()}
    if version != locked.get("version"):
        return {"state": "version differs", **facts, "version": version}
    return {"state": "locked", **facts}
