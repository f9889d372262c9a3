"""Scopes: which folders are scopes, how a connection becomes an ordered chain, who "I" am.

A scope is the repository root (``global``), ``seed`` when ``seed/AGENTS.md`` exists, or a
folder holding an ``AGENTS.md`` directly inside a *collection* folder (``groups``, ``teams``,
``people``, ``hosts`` by default, configurable in ``scopes.json``). Collections nest, so
``people/alice/hosts/laptop`` is a host scope whose ancestor is the person scope
``people/alice``. Scope paths are POSIX paths relative to the root; the root is ``global``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, UsageError
from exobrain.model import GLOBAL
from exobrain.util.fileio import atomic_write_text, dump_json, load_json

SEED = "seed"
SCOPE_FLAG = "AGENTS.md"
CONNECTION_FILE = ".exobrain.json"
DEFAULT_COLLECTIONS: tuple[tuple[str, str], ...] = (
    ("groups", "group"),
    ("teams", "team"),
    ("people", "person"),
    ("hosts", "host"),
)


def find_root(start: Path | None = None) -> Path:
    """The exobrain containing ``start``: the nearest folder above it holding ``.git``."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    raise UsageError(
        f"{here} is not inside a git repository",
        hint="run the command inside your exobrain or pass --repo PATH",
    )


@dataclass(frozen=True)
class ScopeConfig:
    """Collection folder → scope type, in precedence order (earlier = shallower)."""

    collections: tuple[tuple[str, str], ...] = DEFAULT_COLLECTIONS

    def type_of(self, folder: str) -> str | None:
        for name, kind in self.collections:
            if name == folder:
                return kind
        return None

    def rank(self, kind: str) -> int:
        if kind == GLOBAL:
            return -2
        if kind == SEED:
            return -1
        kinds = [k for _, k in self.collections]
        return kinds.index(kind) if kind in kinds else len(kinds)


def load_scope_config(root: Path) -> ScopeConfig:
    """Read ``scopes.json``; a missing file means the default collections."""
    path = root / "scopes.json"
    if not path.exists():
        return ScopeConfig()
    return parse_scope_config(load_json(path), path)


def parse_scope_config(data: Any, path: Path) -> ScopeConfig:
    """Check parsed ``scopes.json`` data (read from disk or from git) and build the config."""
    items = data.get("collections") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise InputFileError(
            f'{path}: expected {{"collections": [{{"folder", "type"}}, …]}}',
            hint="list at least one collection, or delete the file for defaults",
        )
    pairs = []
    for index, item in enumerate(items):
        ok = isinstance(item, dict) and all(
            isinstance(item.get(k), str) and item.get(k) for k in ("folder", "type")
        )
        if not ok or "/" in item["folder"] or item["folder"] in (".", ".."):
            raise InputFileError(
                f'{path}: collections[{index}]: needs a plain "folder" name and a "type"',
                hint='e.g. {"folder": "groups", "type": "group"}',
            )
        pairs.append((item["folder"], item["type"]))
    return ScopeConfig(tuple(pairs))


@dataclass(frozen=True)
class Scope:
    """One scope: its path relative to the root (``global`` for the root) and its type."""

    path: str
    type: str

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def depth(self) -> int:
        return 0 if self.path == GLOBAL else self.path.count("/") + 1

    def directory(self, root: Path) -> Path:
        return root if self.path == GLOBAL else root / self.path


def check_scope_path(path: str) -> str:
    """Normalise a scope path given by a person, refusing what could escape or collide."""
    text = path.strip().strip("/")
    if text in ("", ".", GLOBAL):
        return GLOBAL
    parts = text.split("/")
    if any(part in ("", ".", "..") for part in parts) or text.startswith("-"):
        raise UsageError(f"scope path {path!r} must be a plain relative path without '.' or '..'")
    if "__" in text:
        raise UsageError(
            f"scope path {path!r} must not contain '__' (it is the link-name separator)"
        )
    return text


def scope_at(root: Path, path: str, config: ScopeConfig) -> Scope | None:
    """The scope at ``path`` if that folder is one, else None."""
    if path == GLOBAL:
        return Scope(GLOBAL, GLOBAL)
    if path == SEED:
        return Scope(SEED, SEED) if (root / SEED / SCOPE_FLAG).is_file() else None
    parts = path.split("/")
    if len(parts) % 2 or any(not p or p.startswith(".") for p in parts):
        return None
    kind = config.type_of(parts[-2])
    if kind is None or any(config.type_of(c) is None for c in parts[0::2]):
        return None
    return Scope(path, kind) if (root / path / SCOPE_FLAG).is_file() else None


def ancestor_paths(path: str) -> list[str]:
    """Candidate ancestor scope paths of ``path``, shallow first (global excluded)."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(2, len(parts), 2)]


@dataclass
class ScopeScan:
    """Every scope found in the repository plus the folders that could not be read."""

    scopes: list[Scope]
    problems: list[tuple[str, str]] = field(default_factory=list)  # (folder, reason)


def scan_scopes(
    root: Path, config: ScopeConfig, keep: Callable[[Scope], bool] | None = None
) -> ScopeScan:
    """Walk the collection folders and return every scope, in chain order. ``keep`` prunes:
    a scope it refuses is left out with everything below it (never walked)."""
    found: list[Scope] = [Scope(GLOBAL, GLOBAL)]
    problems: list[tuple[str, str]] = []
    if (root / SEED / SCOPE_FLAG).is_file():
        found.append(Scope(SEED, SEED))

    def visit(base: Path, prefix: str) -> None:
        for folder, kind in config.collections:
            collection = base / folder
            try:
                entries = sorted(os.scandir(collection), key=lambda e: e.name)
            except FileNotFoundError:
                continue
            except NotADirectoryError:
                continue
            except OSError as exc:
                rel = f"{prefix}{folder}"
                problems.append((rel, f"cannot read folder ({exc.strerror or exc})"))
                continue
            for entry in entries:
                if entry.name.startswith(".") or not entry.is_dir():
                    continue
                rel = f"{prefix}{folder}/{entry.name}"
                if os.path.isfile(os.path.join(entry.path, SCOPE_FLAG)):
                    scope = Scope(rel, kind)
                    if keep is None or keep(scope):
                        found.append(scope)
                        visit(Path(entry.path), rel + "/")

    visit(root, "")
    return ScopeScan(order_chain(found, config), problems)


def order_chain(scopes: list[Scope], config: ScopeConfig) -> list[Scope]:
    """Chain order: by (type rank, depth, path), then every ancestor pulled before its child."""
    unique = {s.path: s for s in scopes}
    ordered = sorted(unique.values(), key=lambda s: (config.rank(s.type), s.depth, s.path))
    result: list[Scope] = []
    placed: set[str] = set()
    for scope in ordered:
        for ancestor in [*ancestor_paths(scope.path), scope.path]:
            if ancestor in unique and ancestor not in placed:
                placed.add(ancestor)
                result.append(unique[ancestor])
    return result


@dataclass
class Chain:
    """The connected scope chain, shallow → deep, plus warnings about leaves that were skipped."""

    scopes: list[Scope]
    warnings: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.scopes]


def build_chain(root: Path, leaves: list[str], config: ScopeConfig) -> Chain:
    """Global, seed (when present), then each connected leaf and its scope ancestors. A leaf
    that no longer exists is skipped with a warning; its ancestors that exist stay."""
    scopes = [Scope(GLOBAL, GLOBAL)]
    seed = scope_at(root, SEED, config)
    if seed:
        scopes.append(seed)
    warnings: list[str] = []
    for leaf in leaves:
        try:
            path = check_scope_path(leaf)
        except UsageError as exc:
            warnings.append(f"{CONNECTION_FILE}: connected scope skipped: {exc.message}")
            continue
        scope = scope_at(root, path, config)
        ancestors = [s for s in (scope_at(root, a, config) for a in ancestor_paths(path)) if s]
        scopes.extend(ancestors)  # a removed host drops itself, never its person scope
        if scope is None:
            kept = f"; still connected: {', '.join(a.path for a in ancestors)}" if ancestors else ""
            warnings.append(
                f"{CONNECTION_FILE}: connected scope {leaf!r} does not exist "
                f"(no {path}/{SCOPE_FLAG}); skipped{kept}"
            )
            continue
        scopes.append(scope)
    return Chain(order_chain(scopes, config), warnings)


@dataclass
class Connection:
    """The per-machine ``.exobrain.json``; ``raw`` keeps unknown keys and their order."""

    connected_scopes: list[str] = field(default_factory=list)
    person: str | None = None
    agents: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def is_guest(self) -> bool:
        return not self.connected_scopes


def read_connection(root: Path) -> Connection:
    """Read the connection file; no file means guest."""
    path = root / CONNECTION_FILE
    if not path.exists():
        return Connection()
    data = load_json(path)
    if not isinstance(data, dict):
        raise InputFileError(
            f"{path}: expected a JSON object",
            hint='e.g. {"connected_scopes": ["people/alice"], "person": "alice"}',
        )
    scopes, person, agents = (
        data.get("connected_scopes", []),
        data.get("person"),
        data.get("agents", []),
    )
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InputFileError(f"{path}: connected_scopes must be a list of scope paths")
    if person is not None and not isinstance(person, str):
        raise InputFileError(f"{path}: person must be a string")
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise InputFileError(f"{path}: agents must be a list of agent names")
    return Connection(list(scopes), person or None, list(agents), dict(data))


def connection_data(connection: Connection) -> dict[str, Any]:
    """The JSON object the connection file holds, keeping keys we do not know about."""
    data = dict(connection.raw)
    data["connected_scopes"] = list(connection.connected_scopes)
    if connection.person:
        data["person"] = connection.person
    else:
        data.pop("person", None)
    data["agents"] = list(connection.agents)
    return data


def write_connection(root: Path, connection: Connection) -> None:
    """Rewrite the connection file atomically."""
    data = connection_data(connection)
    atomic_write_text(root / CONNECTION_FILE, dump_json(data), root=root)
    connection.raw = data


def self_ids(connection: Connection, chain: Chain) -> frozenset[str]:
    """Who "I" am: the stored ``person`` when set, else the names of person scopes in the chain."""
    if connection.person:
        return frozenset({connection.person})
    return frozenset(s.name for s in chain.scopes if s.type == "person")
