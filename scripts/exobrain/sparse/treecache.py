"""``.exobrain-cache/tree/``: what was learnt from git's objects about the parts of the
repository a sparse checkout leaves out, so the next run reads only what changed.

Three maps, each split into :data:`SHARDS` files (``units-00.json`` … ``units-3f.json``,
likewise ``registries-`` and ``descriptions-``), so that a run that learnt a few things
rewrites a few small files rather than 200 MB:

* units (the global ``skills/``, ``seed/``, every folder at the top of a collection) by git's
  tree id: ``[tree id, [[scope path, type, registry blob id, [skill, …], [its SKILL.md
  blob id, …]], …]]``, in the shard of the unit's name;
* registries by blob id: their entries as parsed JSON (only registries without findings), in
  the shard of the blob id;
* descriptions by the SKILL.md's blob id, read only by a command that asks for one (the
  catalog does, skills-validate does not: at 100,000 people they are 80 MB of the 210 MB,
  about 0.8 s to load).

It is a speed-up, never a source of truth. It is read only from real files in a real
``.exobrain-cache`` folder inside the repository (never through a link), and only when git
does not track it (:meth:`TreeCache.drop`); a map with a shard that is unreadable, too big,
not JSON, of another version or of the wrong shape is ignored whole (a missing shard is an
empty one). Each shard is written atomically, once per command and only when something in it
changed, and only what the repository still holds is kept.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any, TypeGuard

from exobrain.errors import ExobrainError, InputFileError
from exobrain.model import Lifecycle, Tier
from exobrain.paths import REPO_CACHE, cache_folder
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes
from exobrain.util.gcpause import paused_gc

FOLDER = "tree"
UNITS, REGISTRIES, DESCRIPTIONS = "units", "registries", "descriptions"
SHARDS = 64
CACHE_VERSION = 4
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


class TreeCache:
    """The cache's three maps (see the module): units and registries loaded on creation, the
    descriptions on first use. ``persist`` False: kept in memory only, never read or
    written."""

    def __init__(self, root: Path, *, persist: bool = True) -> None:
        self.root = root
        self.persist = persist
        self.units: dict[str, Any] = {}
        self.registries: dict[str, list[dict[str, Any]]] = {}
        self._descriptions: dict[str, str] | None = None if persist else {}
        self._dirty: dict[str, set[int]] = {UNITS: set(), REGISTRIES: set(), DESCRIPTIONS: set()}
        self._retained: set[str] | None = None  # the units HEAD holds, once all were listed
        if persist:
            self._load()

    @classmethod
    def detached(cls, root: Path) -> TreeCache:
        """An empty cache that never touches the files: for a reader of a few units, to
        which loading and rewriting the whole cache would cost more than it saves."""
        return cls(root, persist=False)

    def _load(self) -> None:
        units = _read_map(self.root, UNITS)
        registries = _read_map(self.root, REGISTRIES)
        if units is not None and all(type(v) is list for v in units.values()):
            self.units = units
        if _registries_shaped(registries):
            self.registries = registries

    @property
    def descriptions(self) -> dict[str, str]:
        if self._descriptions is None:
            found = _read_map(self.root, DESCRIPTIONS)
            ok = found is not None and all(type(v) is str for v in found.values())
            self._descriptions = found if ok and found is not None else {}
        return self._descriptions

    def drop(self) -> None:
        """Forget everything (a cache git tracks was put there by someone else)."""
        self.units, self.registries, self._descriptions = {}, {}, {}
        for shards in self._dirty.values():
            shards.update(range(SHARDS))

    def unit(self, unit: str, tree: str) -> list[list[Any]] | None:
        """The unit's scopes as stored when its tree id is still ``tree``."""
        value = self.units.get(unit)
        if type(value) is list and len(value) == 2 and value[0] == tree:
            scopes = value[1]
            return scopes if type(scopes) is list else None
        return None

    def put_unit(self, unit: str, tree: str, scopes: list[list[Any]]) -> None:
        self.units[unit] = [tree, scopes]
        self._dirty[UNITS].add(shard_of(UNITS, unit))

    def retain(self, units: set[str]) -> None:
        """Keep only these units (the ones HEAD holds): called once every unit was seen."""
        gone = [u for u in self.units if u not in units]
        for unit in gone:
            del self.units[unit]
            self._dirty[UNITS].add(shard_of(UNITS, unit))
        self._retained = units

    def put_registry(self, blob: str, raw: Any) -> None:
        if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
            self.registries[blob] = raw
            self._dirty[REGISTRIES].add(shard_of(REGISTRIES, blob))

    def put_description(self, blob: str, text: str) -> None:
        self.descriptions[blob] = text
        self._dirty[DESCRIPTIONS].add(shard_of(DESCRIPTIONS, blob))

    def save(self) -> None:
        """Write the shards that changed; after a full listing, the registries and
        descriptions no unit uses any more are left out (the descriptions only when they
        were read)."""
        if not self.persist or not any(self._dirty.values()):
            return  # (working out what is used walks every unit: not for nothing)
        maps: dict[str, dict[str, Any]] = {UNITS: self.units, REGISTRIES: self.registries}
        if self._descriptions is not None:
            maps[DESCRIPTIONS] = self._descriptions
        if self._retained is not None:
            used = self._used()
            for kind in (REGISTRIES, DESCRIPTIONS):
                if kind in maps:
                    self._forget_unused(maps[kind], kind, used)
        try:
            cache_folder(self.root, FOLDER)
            for kind, values in maps.items():
                _write_shards(self.root, kind, values, self._dirty[kind])
                self._dirty[kind] = set()
            for name in _FORMER:
                former = self.root / REPO_CACHE / name
                if former.is_file() and not former.is_symlink():
                    former.unlink()
        except (ExobrainError, OSError):
            pass  # only a speed-up

    def _forget_unused(self, values: dict[str, Any], kind: str, used: set[str]) -> None:
        for key in [k for k in values if k not in used]:
            del values[key]
            self._dirty[kind].add(shard_of(kind, key))

    def _used(self) -> set[str]:
        """The blob ids the units name (every id kept, when a unit is of the wrong shape)."""
        used: set[str] = set()
        try:
            for value in self.units.values():
                for scope in value[1]:
                    used.add(scope[2])
                    used.update(scope[4])
        except (TypeError, IndexError, AttributeError):
            return set(self.registries) | set(self._descriptions or {})
        return used


def _read_map(root: Path, kind: str) -> dict[str, Any] | None:
    """One map from its shards (a missing shard is an empty one); None when a shard is
    unreadable, not JSON, of another version or not a map of the right keys."""
    found: dict[str, Any] = {}
    with paused_gc():  # a million objects that all stay: collecting them is only cost
        for shard in range(SHARDS):
            path = shard_file(root, kind, shard)
            if not os.path.lexists(path):
                continue
            data = _read(root, path)
            values = data.get(kind) if data is not None else None
            if not isinstance(values, dict):
                return None
            found.update(values)
    return found


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


def _read(root: Path, path: Path) -> dict[str, Any] | None:
    """One cache file's JSON object when it is readable and of this version, else None."""
    try:
        real = resolve_inside(root, path, links=False)
        data = json.loads(read_bytes(real, limit=CACHE_LIMIT, what="the committed cache"))
    except (InputFileError, ValueError, OSError):
        return None
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None


def _write(root: Path, path: Path, data: dict[str, Any]) -> None:
    with paused_gc():
        text = json.dumps({"version": CACHE_VERSION, **data}, separators=(",", ":"))
    atomic_write_text(path, text, root=root, durable=False)
