"""``.exobrain-cache/tree/``: what was learnt from git's objects about the parts of the
repository a sparse checkout leaves out, so the next run reads only what changed.

Three maps, each split into :data:`SHARDS` files (``units-00.json`` … ``units-3f.json``,
likewise ``registries-`` and ``descriptions-``), so that a run that learnt a few things
rewrites a few small files rather than 200 MB, and a run that asks for a few things reads a few
small files:

* units (the global ``skills/``, ``seed/``, every folder at the top of a collection) by git's
  tree id: ``[tree id, [[scope path, type, registry blob id, [skill, …], [its SKILL.md
  blob id, …]], …]]``, in the shard of the unit's name; read whole by a command that lists
  every unit (the catalog, skills-validate);
* registries by blob id: their entries as parsed JSON (only registries without findings), in
  the shard of the blob id; a command reads the shards of the blobs it asks for
  (``skills-status`` with a scope outside the cone: one or two files, not 6 MB);
* descriptions by the SKILL.md's blob id, likewise read only for the blobs asked for (the
  catalog does, skills-validate does not: at 100,000 people they are 80 MB of the 210 MB).

It is a speed-up, never a source of truth. It is read only from real files in a real
``.exobrain-cache`` folder inside the repository (never through a link), and only when git
does not track it (:meth:`TreeCache.drop`); a shard that is unreadable, too big, not JSON
within :mod:`~exobrain.util.boundedjson`'s limits, of another version or of the wrong shape
(a unit's scopes included) is ignored (a missing shard is an empty one) and rewritten, and,
unless it is only of another version, reported (:func:`exobrain.caches.damaged`). Each shard
is written atomically, once per command and only when something in it changed, and only what
the repository still holds is kept.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any, TypeGuard

from exobrain.caches import REPO_CACHE, TREE, damaged
from exobrain.errors import ExobrainError, InputFileError
from exobrain.model import Lifecycle, Tier
from exobrain.paths import cache_folder
from exobrain.util import boundedjson
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes
from exobrain.util.gcpause import paused_gc

FOLDER = TREE.folder
UNITS, REGISTRIES, DESCRIPTIONS = "units", "registries", "descriptions"
SHARDS = 64
CACHE_VERSION = TREE.version
CACHE_LIMIT = 1 << 30
#: The single files of the cache's version 3, removed when the shards are written.
_FORMER = ("committed.json", "committed-descriptions.json")
_TIERS = frozenset(t.value for t in Tier)
_LIFECYCLES = frozenset(c.value for c in Lifecycle)


def _registries_shaped(registries: Any) -> TypeGuard[dict[str, list[dict[str, Any]]]]:
    """Whether every cached registry entry has what making an entry of it needs (a cache
    edited by hand must be ignored, not crash the command): one loop over 800,000 entries at
    100,000 people."""
    if not isinstance(registries, dict):
        return False
    tiers, lifecycles = _TIERS, _LIFECYCLES
    for entries in registries.values():
        if type(entries) is not list:
            return False
        for entry in entries:
            if not (
                type(entry) is dict
                and type(entry.get("name")) is str
                and entry.get("tier") in tiers
                and entry.get("lifecycle", "active") in lifecycles
            ):
                return False
    return True


def _scopes_shaped(scopes: Any) -> bool:
    """Whether a cached unit's scopes are rows a committed scope can be made of."""
    return type(scopes) is list and all(
        type(row) is list
        and len(row) == 5
        and type(row[0]) is type(row[1]) is str
        and (row[2] is None or type(row[2]) is str)
        and type(row[3]) is type(row[4]) is list
        and len(row[3]) == len(row[4])
        and all(type(item) is str for item in (*row[3], *row[4]))
        for row in scopes
    )


def shard_of(kind: str, key: str) -> int:
    """Which shard of map ``kind`` holds ``key``: a blob id's first two hex digits, a unit
    name's CRC-32 (stable across runs and machines, unlike :func:`hash`)."""
    if kind != UNITS:
        try:
            return int(key[:2], 16) % SHARDS
        except ValueError:
            pass
    return zlib.crc32(key.encode("utf-8", "surrogateescape")) % SHARDS


def shard_file(root: Path, kind: str, shard: int) -> Path:
    return root / REPO_CACHE / FOLDER / f"{kind}-{shard:02x}.json"


class _Map:
    """One map of the cache, its shards read as their keys are asked for (``persist`` False:
    none is ever read, every shard counts as read and empty)."""

    def __init__(self, root: Path, kind: str, persist: bool) -> None:
        self.root = root
        self.kind = kind
        self.values: dict[str, Any] = {}
        self.loaded: set[int] = set() if persist else set(range(SHARDS))
        self.dirty: set[int] = set()

    def shard(self, key: str) -> int:
        return shard_of(self.kind, key)

    def load(self, shards: Iterable[int]) -> None:
        """Read the shards not read yet (a bad one counts as empty, and is rewritten)."""
        for shard in shards:
            if shard in self.loaded:
                continue
            self.loaded.add(shard)
            found = _read_shard(self.root, self.kind, shard)
            if found is None:
                self.dirty.add(shard)  # unreadable or of the wrong shape: written anew
            else:
                self.values.update(found)

    def load_all(self) -> None:
        self.load(range(SHARDS))

    def for_keys(self, keys: Collection[str]) -> dict[str, Any]:
        """The map, with the shards of ``keys`` read (all of them for many keys: working out
        the shard of each of a million would cost more than reading them all)."""
        if len(self.loaded) < SHARDS:
            if len(keys) > 4 * SHARDS:
                self.load_all()
            else:
                self.load({self.shard(key) for key in keys})
        return self.values

    def put(self, key: str, value: Any) -> None:
        shard = self.shard(key)
        self.load((shard,))  # a shard is written whole: what it held must be kept
        self.values[key] = value
        self.dirty.add(shard)

    def delete(self, key: str) -> None:
        del self.values[key]
        self.dirty.add(self.shard(key))

    def clear(self) -> None:
        self.values = {}
        self.loaded = set(range(SHARDS))
        self.dirty = set(range(SHARDS))

    def save(self) -> None:
        _write_shards(self.root, self.kind, self.values, self.dirty)
        self.dirty = set()


class TreeCache:
    """The cache's three maps (see the module), each read shard by shard on first need.
    ``persist`` False: kept in memory only, never read or written."""

    def __init__(self, root: Path, *, persist: bool = True) -> None:
        self.root = root
        self.persist = persist
        self._units = _Map(root, UNITS, persist)
        self._registries = _Map(root, REGISTRIES, persist)
        self._descriptions = _Map(root, DESCRIPTIONS, persist)
        self._retained: set[str] | None = None  # the units HEAD holds, once all were listed

    @classmethod
    def detached(cls, root: Path) -> TreeCache:
        """An empty cache that never touches the files: for a reader of a few units, to
        which loading and rewriting the whole cache would cost more than it saves."""
        return cls(root, persist=False)

    def drop(self) -> None:
        """Forget everything (a cache git tracks was put there by someone else)."""
        for values in (self._units, self._registries, self._descriptions):
            values.clear()

    def unit(self, unit: str, tree: str) -> list[list[Any]] | None:
        """The unit's scopes as stored when its tree id is still ``tree`` (each ``[path, type,
        registry blob id or None, [skill, …], [its SKILL.md blob id, …]]``); None when it
        changed, and when it is of the wrong shape (reported: the unit is listed again)."""
        if len(self._units.loaded) < SHARDS:  # (asked of every unit by a full listing)
            self._units.load_all()
        value = self._units.values.get(unit)
        if value is None or (type(value) is list and len(value) == 2 and value[0] != tree):
            return None
        if type(value) is list and len(value) == 2 and _scopes_shaped(value[1]):
            return value[1]  # type: ignore[no-any-return]
        shard = shard_file(self.root, UNITS, shard_of(UNITS, unit))
        damaged(TREE, shard.relative_to(self.root).as_posix(), f"unit {unit} of the wrong shape")
        return None

    def put_unit(self, unit: str, tree: str, scopes: list[list[Any]]) -> None:
        self._units.put(unit, [tree, scopes])

    def retain(self, units: set[str]) -> None:
        """Keep only these units (the ones HEAD holds): called once every unit was seen."""
        self._units.load_all()
        for unit in [u for u in self._units.values if u not in units]:
            self._units.delete(unit)
        self._retained = units

    def registries(self, blobs: Collection[str]) -> dict[str, list[dict[str, Any]]]:
        """The cached registries, with those of ``blobs`` among them when known."""
        return self._registries.for_keys(blobs)

    def put_registry(self, blob: str, raw: Any) -> None:
        if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
            self._registries.put(blob, raw)

    def descriptions(self, blobs: Collection[str]) -> dict[str, str]:
        """The cached descriptions, with those of ``blobs`` among them when known."""
        return self._descriptions.for_keys(blobs)

    def put_description(self, blob: str, text: str) -> None:
        self._descriptions.put(blob, text)

    def save(self) -> None:
        """Write the shards that changed; after a full listing, the registries (and, when
        any were read, the descriptions) no unit uses any more are left out."""
        maps = (self._units, self._registries, self._descriptions)
        if not self.persist or not any(m.dirty for m in maps):
            return  # (working out what is used walks every unit: not for nothing)
        if self._retained is not None:
            used = self._used()
            for values in (self._registries, self._descriptions):
                if values is self._registries or values.loaded:
                    values.load_all()
                    for key in [k for k in values.values if k not in used]:
                        values.delete(key)
        try:
            cache_folder(self.root, FOLDER)
            for values in maps:
                values.save()
            for name in _FORMER:
                former = self.root / REPO_CACHE / name
                if former.is_file() and not former.is_symlink():
                    former.unlink()
        except (ExobrainError, OSError):
            pass  # only a speed-up

    def _used(self) -> set[str]:
        """The blob ids the units name (every id kept, when a unit is of the wrong shape)."""
        used: set[str] = set()
        try:
            for value in self._units.values.values():
                for scope in value[1]:
                    used.add(scope[2])
                    used.update(scope[4])
        except (TypeError, IndexError, AttributeError):
            self._registries.load_all()
            self._descriptions.load_all()
            return set(self._registries.values) | set(self._descriptions.values)
        return used


def _read_shard(root: Path, kind: str, shard: int) -> dict[str, Any] | None:
    """One shard's map ({} when the file is missing); None when it is of another version,
    unreadable, not JSON within the bounded reader's limits or of the wrong shape (the last
    three are damage, reported once: :func:`exobrain.caches.damaged`)."""
    path = shard_file(root, kind, shard)
    if not os.path.lexists(path):
        return {}
    with paused_gc():  # many objects that all stay: collecting them is only cost
        data, why = _read(root, path)
    if data is not None and data.get("version") != CACHE_VERSION:
        return None  # another toolkit's format: written anew, nothing to report
    values = data.get(kind) if data is not None else None
    if isinstance(values, dict):
        if _shaped(kind, values):
            return values
        why = f"a value of the wrong shape among its {kind}"
    damaged(TREE, path.relative_to(root).as_posix(), why or f"no map of {kind}")
    return None


def _shaped(kind: str, values: dict[str, Any]) -> bool:
    if kind == UNITS:
        return all(type(v) is list for v in values.values())
    if kind == REGISTRIES:
        return _registries_shaped(values)
    return all(type(v) is str for v in values.values())


def _write_shards(root: Path, kind: str, values: dict[str, Any], shards: set[int]) -> None:
    """Write the shards ``shards`` of map ``kind`` (one pass over the map to split it)."""
    if not shards:
        return
    split: dict[int, dict[str, Any]] = {shard: {} for shard in shards}
    for key, value in values.items():
        part = split.get(shard_of(kind, key))
        if part is not None:
            part[key] = value
    for shard, part in split.items():
        _write(root, shard_file(root, kind, shard), {kind: part})


def _read(root: Path, path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """One cache file's JSON object (read as real file inside ``root``, within the limits of
    :mod:`~exobrain.util.boundedjson`), or None and why not."""
    try:
        real = resolve_inside(root, path, links=False)
        data = boundedjson.loads(read_bytes(real, limit=CACHE_LIMIT, what="the committed cache"))
    except InputFileError as exc:
        return None, exc.message.removeprefix(f"{path}: ")
    except (ValueError, OSError) as exc:
        return None, f"not JSON ({exc})" if isinstance(exc, ValueError) else str(exc)
    return (data, None) if isinstance(data, dict) else (None, "not a JSON object")


def _write(root: Path, path: Path, data: dict[str, Any]) -> None:
    with paused_gc():
        text = json.dumps({"version": CACHE_VERSION, **data}, separators=(",", ":"))
    atomic_write_text(path, text, root=root, durable=False)
