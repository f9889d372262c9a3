"""A committed repository's units and their scopes, worked out from git's listings: pure
functions over what :mod:`exobrain.sparse.committed` asked git (no git call here).

A *unit* is the global ``skills/``, ``seed/`` or a folder directly inside a collection at the
root (``groups/acme``, ``people/alice`` with her hosts): its tree id changes whenever anything
below it does, so what is learnt about it is cached under that id.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from exobrain.model import GLOBAL
from exobrain.registry.entries import REGISTRY_FILE
from exobrain.scopes import SCOPE_FLAG, SEED, ScopeConfig, scopes_from_flags
from exobrain.skillmd import SKILL_FILE
from exobrain.util.gitobjects import TreeEntry

LINK = "link"  # a registry or skill folder committed as a symbolic link: not read from git
LINK_MODE = "120000"
_LINK_PREFIX = LINK_MODE.encode()


@dataclass(slots=True)
class CommittedScope:
    """One scope as committed: its registry's blob id (None: no registry, :data:`LINK`: a
    link) and each skill folder's SKILL.md blob id (:data:`LINK` for a link)."""

    path: str
    type: str
    registry: str | None
    skills: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> list[Any]:
        """The cache's row: the skills as a list of names and one of blob ids (lists parse
        twice as fast as 300,000 small maps)."""
        return [self.path, self.type, self.registry, list(self.skills), list(self.skills.values())]


def unit_of(path: str, collections: AbstractSet[str]) -> str | None:
    """The unit a committed path belongs to (None: a file of the framework at the root)."""
    head, _, rest = path.partition("/")
    if head in (SEED, "skills"):
        return head
    if head in collections and rest:
        return f"{head}/{rest.partition('/')[0]}"
    return None


def unit_files(
    listing: bytes, wanted: set[str], collections: set[str]
) -> dict[str, list[list[str]]]:
    """``[mode, blob id, path]`` of the files of ``wanted`` units a scope is made of (flags,
    registries, SKILL.md files, links), by unit, from ``git ls-tree -r -z`` output."""
    found: dict[str, list[list[str]]] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        info, _, raw = record.partition(b"\t")
        path = raw.decode("utf-8", "surrogateescape")
        if not path.endswith((SCOPE_FLAG, REGISTRY_FILE, SKILL_FILE)) and not info.startswith(
            _LINK_PREFIX
        ):
            continue
        unit = unit_of(path, collections)
        if unit in wanted:
            mode, _, oid = info.decode().split(" ")
            found.setdefault(unit, []).append([mode, oid, path])
    return found


def summarise(unit: str, files: list[list[str]], config: ScopeConfig) -> list[CommittedScope]:
    """The scopes of one unit from its file list, each with its registry and skills."""
    if unit == "skills":
        scopes = {GLOBAL: CommittedScope(GLOBAL, GLOBAL, None)}
    else:
        flagged = [p[: -len(SCOPE_FLAG) - 1] for _, _, p in files if p.endswith("/" + SCOPE_FLAG)]
        kinds = scopes_from_flags(flagged, config)
        scopes = {
            path: CommittedScope(path, kind, None)
            for path, kind in kinds.items()
            if path == unit or path.startswith(unit + "/")
        }
    for mode, oid, path in files:
        folder, _, name = path.rpartition("/")
        if name == REGISTRY_FILE and folder in scopes:
            scopes[folder].registry = LINK if mode == LINK_MODE else oid
            continue
        home, marker, rest = (f"/{path}" if unit == "skills" else path).rpartition("/skills/")
        home = home.lstrip("/") or GLOBAL
        if not marker or home not in scopes:
            continue
        skill, _, inside = rest.partition("/")
        if inside == SKILL_FILE:
            scopes[home].skills[skill] = LINK if mode == LINK_MODE else oid
        elif not inside and mode == LINK_MODE:
            scopes[home].skills[skill] = LINK
    return list(scopes.values())


def registry_id(entry: TreeEntry | None) -> str | None:
    if entry is None or entry.is_tree:
        return None
    return LINK if entry.mode == LINK_MODE else entry.oid
