"""Scopes: which folders are scopes, how a connection becomes an ordered chain, who "I" am.

A scope is the repository root (``global``), ``seed`` when ``seed/AGENTS.md`` exists, or a
folder holding an ``AGENTS.md`` directly inside a *collection* folder (``groups``, ``teams``,
``people``, ``hosts`` by default, configurable in ``scopes.json``). Collections nest, so
``people/alice/hosts/laptop`` is a host scope whose ancestor is the person scope
``people/alice``. Scope paths are POSIX paths relative to the root; the root is ``global``.

Exobrains made with the original bash implementation are read as they are: its
``scopes.json`` form, its private ``local/`` scope (a host scope here) and the older shapes of
``.exobrain.json`` mean what they meant there, and a rewrite keeps the file's forms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, UsageError
from exobrain.model import GLOBAL
from exobrain.util.fileio import atomic_write_text, dump_json, is_file, load_json

SEED = "seed"
SCOPE_FLAG = "AGENTS.md"
CONNECTION_FILE = ".exobrain.json"
#: The private scope of the original bash implementation: ``local/`` at the root, outside any
#: collection and gitignored there. Read as a host scope (this machine's own).
LOCAL = "local"
LOCAL_TYPE = "host"
#: The key the bash implementation used for the connected scopes before it was renamed.
BASH_CONNECTED_KEY = "connected"
DEFAULT_COLLECTIONS: tuple[tuple[str, str], ...] = (
    ("groups", "group"),
    ("teams", "team"),
    ("people", "person"),
    ("hosts", "host"),
)
#: Scope types that impose on no one: a person's own scopes. Every other type (global, seed,
#: a group, a team, a collection of the repository's own) is shared: what lands there reaches
#: other members, so the authoring gate and the hidden-text check hold it to more.
PERSONAL_TYPES = frozenset({"person", "host"})


def is_shared(scope_type: str) -> bool:
    return scope_type not in PERSONAL_TYPES


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


#: The key of ``.exobrain.json`` listing the agents connected at user level.
USER_AGENTS_KEY = "user_agents"


@dataclass(frozen=True)
class ScopeConfig:
    """Collection folder → scope type, in precedence order (earlier = shallower).
    ``bash_era``: read from the original bash implementation's ``scopes.json`` form."""

    collections: tuple[tuple[str, str], ...] = DEFAULT_COLLECTIONS
    bash_era: bool = False

    @property
    def folders(self) -> frozenset[str]:
        """The collection folders' names."""
        return frozenset(name for name, _ in self.collections)

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
    """Check parsed ``scopes.json`` data (read from disk or from git) and build the config.

    Two forms mean the same: today's ``{"collections": [{"folder", "type"}, …]}`` and the
    original bash implementation's ``{"scopes": [{"type", "collection"}, …]}``, where the
    collections it does not list keep their default types (as the bash fallbacks did)."""
    if isinstance(data, dict) and "collections" not in data and "scopes" in data:
        return _bash_scope_config(data["scopes"], path)
    items = data.get("collections") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise InputFileError(
            f'{path}: expected {{"collections": [{{"folder", "type"}}, …]}}',
            hint="list at least one collection, or delete the file for defaults",
        )
    return ScopeConfig(
        tuple(_collection(item, index, path, "folder") for index, item in enumerate(items))
    )


def _collection(item: Any, index: int, path: Path, folder_key: str) -> tuple[str, str]:
    key = "collections" if folder_key == "folder" else "scopes"
    ok = isinstance(item, dict) and all(
        isinstance(item.get(k), str) and item.get(k) for k in (folder_key, "type")
    )
    if not ok or "/" in item[folder_key] or item[folder_key] in (".", ".."):
        raise InputFileError(
            f'{path}: {key}[{index}]: needs a plain "{folder_key}" name and a "type"',
            hint=f'e.g. {{"{folder_key}": "groups", "type": "group"}}',
        )
    return item[folder_key], item["type"]


def _bash_scope_config(items: Any, path: Path) -> ScopeConfig:
    if not isinstance(items, list):
        raise InputFileError(
            f'{path}: "scopes" must be a list of {{"type", "collection"}}',
            hint='or write today\'s form: {"collections": [{"folder", "type"}, …]}',
        )
    pairs = [_collection(item, index, path, "collection") for index, item in enumerate(items)]
    listed = {folder for folder, _ in pairs}
    pairs += [pair for pair in DEFAULT_COLLECTIONS if pair[0] not in listed]
    return ScopeConfig(tuple(pairs), bash_era=True)


def today_form(config: ScopeConfig) -> dict[str, Any]:
    """The ``scopes.json`` content that says the same as ``config`` in today's form."""
    return {"collections": [{"folder": f, "type": t} for f, t in config.collections]}


@dataclass(frozen=True, slots=True)
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
    """The scope at ``path`` if that folder is one, else None (a folder this user cannot
    search is an InputFileError naming it: whether it is a scope cannot be told)."""
    if path == GLOBAL:
        return Scope(GLOBAL, GLOBAL)
    if path == SEED:
        return Scope(SEED, SEED) if is_file(root / SEED / SCOPE_FLAG) else None
    if path == LOCAL:
        return Scope(LOCAL, LOCAL_TYPE) if is_file(root / LOCAL / SCOPE_FLAG) else None
    parts = path.split("/")
    if len(parts) % 2 or any(not p or p.startswith(".") for p in parts):
        return None
    kind = config.type_of(parts[-2])
    if kind is None or any(config.type_of(c) is None for c in parts[0::2]):
        return None
    return Scope(path, kind) if is_file(root / path / SCOPE_FLAG) else None


def scopes_from_flags(flagged: Iterable[str], config: ScopeConfig) -> dict[str, str]:
    """Scope path → type for folders known to hold an ``AGENTS.md`` (from git's file lists,
    where there is no folder to walk): the same rule as :func:`scan_scopes`, ancestors
    included, global always."""
    scopes = {GLOBAL: GLOBAL}
    folders = set(flagged)
    if SEED in folders:
        scopes[SEED] = SEED
    for path in sorted(folders, key=lambda p: p.count("/")):
        parts = path.split("/")
        if len(parts) % 2 or any(not p or p.startswith(".") for p in parts):
            continue
        kinds = [config.type_of(folder) for folder in parts[0::2]]
        parent, kind = "/".join(parts[:-2]), kinds[-1]
        if kind is not None and None not in kinds and (not parent or parent in scopes):
            scopes[path] = kind
    return scopes


def ancestor_paths(path: str) -> list[str]:
    """Candidate ancestor scope paths of ``path``, shallow first (global excluded)."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(2, len(parts), 2)]


def order_chain(scopes: list[Scope], config: ScopeConfig) -> list[Scope]:
    """Chain order: by (type rank, depth, path), then every ancestor pulled before its child
    (each type ranked once: a sparse clone of 100,000 people orders 300,000 scopes)."""
    unique = {s.path: s for s in scopes}
    rank = {kind: config.rank(kind) for kind in {s.type for s in unique.values()}}
    ordered = sorted(unique.values(), key=lambda s: (rank[s.type], s.depth, s.path))
    result: list[Scope] = []
    placed: set[str] = set()
    for scope in ordered:
        path = scope.path
        if path in placed:
            continue
        # a placed parent had its own ancestors placed first: nothing left to pull
        parent = path.rsplit("/", 2)[0] if path.count("/") > 1 else ""
        if parent and parent not in placed:
            for ancestor in ancestor_paths(path):
                if ancestor in unique and ancestor not in placed:
                    placed.add(ancestor)
                    result.append(unique[ancestor])
        placed.add(path)
        result.append(scope)
    return result


@dataclass
class Chain:
    """The connected scope chain, shallow → deep, plus warnings about leaves that were skipped."""

    scopes: list[Scope]
    warnings: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.scopes]


def build_chain(
    root: Path,
    leaves: list[str],
    config: ScopeConfig,
    lookup: Callable[[str], Scope | None] | None = None,
) -> Chain:
    """Global, seed (when present), then each connected leaf and its scope ancestors. A leaf
    that no longer exists is skipped with a warning; its ancestors that exist stay.
    ``lookup`` finds a scope by path (default: on disk; a sparse checkout's workspace also
    asks git for the folders it leaves out)."""
    if lookup is None:
        return build_chain(root, leaves, config, lambda path: scope_at(root, path, config))
    scopes = [Scope(GLOBAL, GLOBAL)]
    seed = lookup(SEED)
    if seed:
        scopes.append(seed)
    warnings: list[str] = []
    for leaf in leaves:
        try:
            path = check_scope_path(leaf)
        except UsageError as exc:
            warnings.append(f"{CONNECTION_FILE}: connected scope skipped: {exc.message}")
            continue
        scope = lookup(path)
        ancestors = [s for s in (lookup(a) for a in ancestor_paths(path)) if s]
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
    """The per-machine ``.exobrain.json``; ``raw`` keeps unknown keys and their order.

    ``people`` are all the ids ``person`` names (the bash implementation allowed a list;
    ``person`` is the first); ``scopes_key`` is the key the file keeps the connected scopes
    under (``connected`` in files of the bash implementation before its rename), which a
    rewrite keeps."""

    connected_scopes: list[str] = field(default_factory=list)
    person: str | None = None
    agents: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    people: tuple[str, ...] = ()
    scopes_key: str = "connected_scopes"

    @property
    def every_agent(self) -> list[str]:
        """The agents connected at project level and, as far as the file says so correctly,
        at user level (``user_agents``; connect-agent reports a malformed list)."""
        user = self.raw.get(USER_AGENTS_KEY, [])
        named = [a for a in user if isinstance(a, str)] if isinstance(user, list) else []
        return list(dict.fromkeys([*self.agents, *named]))

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
    key = (
        BASH_CONNECTED_KEY
        if "connected_scopes" not in data and BASH_CONNECTED_KEY in data
        else "connected_scopes"
    )
    scopes, person, agents = data.get(key, []), data.get("person"), data.get("agents", [])
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InputFileError(f"{path}: {key} must be a list of scope paths")
    people = person if isinstance(person, list) else [person] if person else []
    if not all(isinstance(p, str) and p for p in people):
        raise InputFileError(
            f"{path}: person must be an id or a list of ids", hint='e.g. "person": "alice"'
        )
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise InputFileError(f"{path}: agents must be a list of agent names")
    first = people[0] if people else None
    return Connection(list(scopes), first, list(agents), dict(data), tuple(people), key)


def connection_data(connection: Connection) -> dict[str, Any]:
    """The JSON object the connection file holds, keeping keys we do not know about, and the
    file's own forms (a list of ids in ``person`` that still holds the person, the
    ``connected`` key of the bash implementation)."""
    data = dict(connection.raw)
    data[connection.scopes_key] = list(connection.connected_scopes)
    kept = data.get("person")
    if isinstance(kept, list) and connection.person in kept:
        pass  # the same people: the list stays as the user wrote it
    elif connection.person:
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
    """Who "I" am: the stored ``person`` (every id it lists) when set, else the names of
    person scopes in the chain."""
    if connection.person:
        return frozenset(connection.people or (connection.person,))
    return frozenset(s.name for s in chain.scopes if s.type == "person")
