"""``.exobrain-cache/committed.json``: what was learnt from git's objects about the parts of
the repository a sparse checkout leaves out, so the next run reads only what changed.

* units (the global ``skills/``, ``seed/``, every folder at the top of a collection) by git's
  tree id: ``[tree id, [[scope path, type, registry blob id, {skill: SKILL.md blob id}], …]]``;
* registries by blob id: their entries as parsed JSON (only registries without findings);
* descriptions by the SKILL.md's blob id.

It is a speed-up, never a source of truth. It is read only from a real file in a real
``.exobrain-cache`` folder inside the repository (never through a link), and only when git
does not track it (:meth:`TreeCache.drop`); a file that is unreadable, too big, not JSON, of
another version or of the wrong shape is ignored whole. It is written atomically, once per
command, and only what the repository still holds is kept.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError, InputFileError
from exobrain.model import Lifecycle, Tier
from exobrain.paths import REPO_CACHE, cache_folder
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes

CACHE_FILE = "committed.json"
CACHE_VERSION = 2
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


def _entry_shaped(entry: Any) -> bool:
    """Whether a cached registry entry has what making an entry of it needs (a cache edited
    by hand must be ignored, not crash the command)."""
    return (
        type(entry) is dict
        and type(entry.get("name")) is str
        and entry.get("tier") in _TIERS
        and entry.get("lifecycle", "active") in _LIFECYCLES
    )


class TreeCache:
    """The cache file's three maps (see the module), loaded on creation."""

    def __init__(self, root: Path) -> None:
        self.units: dict[str, Any] = {}
        self.registries: dict[str, list[dict[str, Any]]] = {}
        self.descriptions: dict[str, str] = {}
        self.changed = False
        self._retained: set[str] | None = None  # the units HEAD holds, once all were listed
        self._load(root)

    def _load(self, root: Path) -> None:
        try:
            path = resolve_inside(root, root / REPO_CACHE / CACHE_FILE, links=False)
            with paused_gc():
                data = json.loads(read_bytes(path, limit=CACHE_LIMIT, what="the committed cache"))
        except (InputFileError, ValueError, OSError):
            return
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return
        units, registries, descriptions = (
            data.get("units"),
            data.get("registries"),
            data.get("descriptions"),
        )
        if not (
            isinstance(units, dict)
            and isinstance(registries, dict)
            and isinstance(descriptions, dict)
            and all(type(v) is list for v in registries.values())
            and all(_entry_shaped(e) for v in registries.values() for e in v)
            and all(type(v) is str for v in descriptions.values())
        ):
            return
        self.units, self.registries, self.descriptions = units, registries, descriptions

    def drop(self) -> None:
        """Forget everything (a cache git tracks was put there by someone else)."""
        self.units, self.registries, self.descriptions = {}, {}, {}
        self.changed = True

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

    def registry(self, blob: str) -> list[dict[str, Any]] | None:
        return self.registries.get(blob)

    def put_registry(self, blob: str, raw: Any) -> None:
        if isinstance(raw, list) and all(isinstance(e, dict) for e in raw):
            self.registries[blob] = raw
            self.changed = True

    def put_description(self, blob: str, text: str) -> None:
        self.descriptions[blob] = text
        self.changed = True

    def save(self, root: Path) -> None:
        """Write the cache when something new was learnt; after a full listing, the registries
        and descriptions no unit uses any more are left out."""
        if not self.changed:
            return
        registries, descriptions = self.registries, self.descriptions
        if self._retained is not None:
            used: set[str] = set()
            try:
                for value in self.units.values():
                    for scope in value[1]:
                        used.add(scope[2])
                        used.update(scope[3].values())
            except (TypeError, IndexError, AttributeError):
                used = set(registries) | set(descriptions)  # a unit of the wrong shape
            registries = {k: v for k, v in registries.items() if k in used}
            descriptions = {k: v for k, v in descriptions.items() if k in used}
        data = {
            "version": CACHE_VERSION,
            "units": self.units,
            "registries": registries,
            "descriptions": descriptions,
        }
        try:
            folder = cache_folder(root)
            text = json.dumps(data, separators=(",", ":"))
            atomic_write_text(folder / CACHE_FILE, text, root=root, durable=False)
        except (ExobrainError, OSError):
            pass  # only a speed-up
        self.changed = False
