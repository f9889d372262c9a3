"""``.exobrain-cache/committed.json`` and ``committed-descriptions.json``: what was learnt from
git's objects about the parts of the repository a sparse checkout leaves out, so the next run
reads only what changed.

* units (the global ``skills/``, ``seed/``, every folder at the top of a collection) by git's
  tree id: ``[tree id, [[scope path, type, registry blob id, [skill, …], [its SKILL.md
  blob id, …]], …]]``;
* registries by blob id: their entries as parsed JSON (only registries without findings);
* descriptions by the SKILL.md's blob id, in a file of their own, read only by a command that
  asks for one (the catalog does, skills-validate does not: at 100,000 people they are 80 MB
  of the 210 MB, about 0.8 s to load).

It is a speed-up, never a source of truth. It is read only from real files in a real
``.exobrain-cache`` folder inside the repository (never through a link), and only when git
does not track it (:meth:`TreeCache.drop`); a file that is unreadable, too big, not JSON, of
another version or of the wrong shape is ignored whole. Each file is written atomically, once
per command and only when something new went into it, and only what the repository still
holds is kept.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard

from exobrain.errors import ExobrainError, InputFileError
from exobrain.model import Lifecycle, Tier
from exobrain.paths import REPO_CACHE, cache_folder
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes

CACHE_FILE = "committed.json"
DESCRIPTIONS_FILE = "committed-descriptions.json"
CACHE_VERSION = 3
CACHE_LIMIT = 1 << 30
_TIERS = frozenset(t.value for t in Tier)
_LIFECYCLES = frozenset(c.value for c in Lifecycle)


@contextmanager
def paused_gc(*, for_good: bool = False) -> Iterator[None]:
    """No cyclic garbage collection while a big graph of objects that all stay alive is built
    (a catalog of a million entries): collecting them again and again only costs time.

    ``for_good``: what was made stays alive until the process ends (a command's last step).
    Then it is handed to the permanent generation (:func:`gc.freeze`) instead of being walked
    by the first collection after the pause (about 1 s for a million objects); reference
    counting still frees each of them when dropped. Not for a long-lived process (the MCP
    server), where cyclic garbage frozen with them would never be collected."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if for_good:
                gc.freeze()
            gc.enable()


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


class TreeCache:
    """The cache's three maps (see the module): units and registries loaded on creation, the
    descriptions on first use."""

    def __init__(self, root: Path, *, persist: bool = True) -> None:
        self.root = root
        self.persist = persist  # False: kept in memory only, never read or written
        self.units: dict[str, Any] = {}
        self.registries: dict[str, list[dict[str, Any]]] = {}
        self.changed = False
        self._descriptions: dict[str, str] | None = None if persist else {}
        self._descriptions_changed = False
        self._retained: set[str] | None = None  # the units HEAD holds, once all were listed
        if persist:
            self._load()

    @classmethod
    def detached(cls, root: Path) -> TreeCache:
        """An empty cache that never touches the files: for a reader of a few units, to
        which loading and rewriting the whole cache would cost more than it saves."""
        return cls(root, persist=False)

    def _load(self) -> None:
        data = _read(self.root, CACHE_FILE)
        if data is None:
            return
        units, registries = data.get("units"), data.get("registries")
        if isinstance(units, dict) and _registries_shaped(registries):
            self.units, self.registries = units, registries

    @property
    def descriptions(self) -> dict[str, str]:
        if self._descriptions is None:
            data = _read(self.root, DESCRIPTIONS_FILE)
            found = data.get("descriptions") if data is not None else None
            ok = isinstance(found, dict) and all(type(v) is str for v in found.values())
            self._descriptions = found if ok and isinstance(found, dict) else {}
        return self._descriptions

    def drop(self) -> None:
        """Forget everything (a cache git tracks was put there by someone else)."""
        self.units, self.registries, self._descriptions = {}, {}, {}
        self.changed = self._descriptions_changed = True

    def unit(self, unit: str, tree: str) -> list[list[Any]] | None:
        """The unit's scopes as stored when its tree id is still ``tree``."""
        value = self.units.get(unit)
        if type(value) is list and len(value) == 2 and value[0] == tree:
            scopes = value[1]
            return scopes if type(scopes) is list else None
        return None

    def put_unit(self, unit: str, tree: str, scopes: list[list[Any]]) -> None:
        self.units[unit] = [tree, scopes]
        self.changed = True

    def retain(self, units: set[str]) -> None:
        """Keep only these units (the ones HEAD holds): called once every unit was seen."""
        if set(self.units) - units:
            self.units = {u: v for u, v in self.units.items() if u in units}
            self.changed = True
        self._retained = units

    def put_registry(self, blob: str, raw: Any) -> None:
        if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
            self.registries[blob] = raw
            self.changed = True

    def put_description(self, blob: str, text: str) -> None:
        self.descriptions[blob] = text
        self._descriptions_changed = True

    def save(self) -> None:
        """Write what changed; after a full listing, the registries and descriptions no unit
        uses any more are left out (the descriptions only when they were read)."""
        changed = self.changed or (self._descriptions is not None and self._descriptions_changed)
        if not changed or not self.persist:
            return  # (working out what is used walks every unit: not for nothing)
        used = self._used() if self._retained is not None else None
        if self.changed:
            registries = self.registries
            if used is not None:
                registries = {k: v for k, v in registries.items() if k in used}
            _write(self.root, CACHE_FILE, {"units": self.units, "registries": registries})
            self.changed = False
        if self._descriptions is not None and self._descriptions_changed:
            descriptions = self._descriptions
            if used is not None:
                descriptions = {k: v for k, v in descriptions.items() if k in used}
            _write(self.root, DESCRIPTIONS_FILE, {"descriptions": descriptions})
            self._descriptions_changed = False

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


def _read(root: Path, name: str) -> dict[str, Any] | None:
    """One cache file's JSON object when it is readable and of this version, else None."""
    try:
        path = resolve_inside(root, root / REPO_CACHE / name, links=False)
        with paused_gc():
            data = json.loads(read_bytes(path, limit=CACHE_LIMIT, what="the committed cache"))
    except (InputFileError, ValueError, OSError):
        return None
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None


def _write(root: Path, name: str, data: dict[str, Any]) -> None:
    try:
        folder = cache_folder(root)
        with paused_gc():
            text = json.dumps({"version": CACHE_VERSION, **data}, separators=(",", ":"))
        atomic_write_text(folder / name, text, root=root, durable=False)
    except (ExobrainError, OSError):
        pass  # only a speed-up
