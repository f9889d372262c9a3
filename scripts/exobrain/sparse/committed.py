"""The repository as committed: the scopes, registries and SKILL.md files a sparse checkout
leaves off the disk, read from git's objects at ``HEAD``.

Commands that need the whole repository (``skills-status --all``, ``skills-validate``,
search ``--all-scopes``, sweep) take what the working tree holds from the disk and the rest
from here, so a sparse checkout never shrinks their answer. The repository is split into
*units*: the global ``skills/``, ``seed/`` and every folder directly inside a collection at
the root (``groups/acme``, ``people/alice`` with her hosts; :mod:`exobrain.sparse.units`
works out their scopes from git's listings). A unit's tree id changes whenever anything below
it does, so what was learnt about a unit — its scopes, their registries' blob ids, each skill's
SKILL.md blob id — is cached under that id (:mod:`exobrain.sparse.treecache`), with each
registry's parsed entries and each description under the blob's id: a second run lists and
reads only the units that changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from exobrain.caches import COMMITTED, REPO_CACHE
from exobrain.errors import ExobrainError
from exobrain.model import GLOBAL, Identity
from exobrain.paths import cache_folder
from exobrain.registry.entries import (
    REGISTRY_FILE,
    Registry,
    registry_from_text,
    registry_if_clean,
)
from exobrain.scopes import SCOPE_FLAG, SEED, ScopeConfig, scopes_from_flags
from exobrain.skillmd import SKILL_FILE, SKILL_LIMIT, quick_meta_of
from exobrain.sparse.treecache import TreeCache
from exobrain.sparse.units import (
    LINK,
    LINK_MODE,
    CommittedScope,
    registry_id,
    summarise,
    unit_files,
)
from exobrain.util.checkout import Checkout
from exobrain.util.fileio import JSON_LIMIT, atomic_write_text, make_folders
from exobrain.util.gcpause import paused_gc
from exobrain.util.gitobjects import GitObject, TreeEntry, parse_tree
from exobrain.util.progress import Progress, counted
from exobrain.util.repository import Repository

#: ``.exobrain-cache/committed/``: readable copies of files outside the checkout (search).
COPIES = COMMITTED.folder
#: Above this many units to list, one ``ls-tree`` walks whole collections instead.
PATHSPEC_LIMIT = 500
_SKILL_PATH = Path(SKILL_FILE)  # what a committed SKILL.md's problems are reported against


class CommittedTree:
    """What ``HEAD`` holds, unit by unit, for the parts of the repository the checkout does
    not (see the module). ``unread`` names what could not be read and why."""

    def __init__(
        self,
        root: Path,
        config: ScopeConfig,
        checkout: Checkout,
        progress: Progress | None = None,
        *,
        only: frozenset[str] | None = None,
    ) -> None:
        self.root = root
        self.config = config
        self.checkout = checkout
        self.progress = progress  # reading and fetching many blobs: stages ``git-…``
        #: list only these units (and the global ``skills/``), straight from git without the
        #: cache file: a catalog patched for what changed (:mod:`exobrain.catalog.patch`)
        self.only = only
        self.repo = Repository(root, own_env=True)
        self.head = self.repo.commit_of("HEAD")
        self.unread: dict[str, str] = {}
        #: whether HEAD tracks ``.exobrain-cache`` (then no cache of it is trusted)
        self.tracks_cache = False
        self._cache_loaded = TreeCache.detached(root) if only is not None else None
        self._scopes: dict[str, CommittedScope] | None = None
        self._single: dict[str, CommittedScope | None] = {}
        #: unit → the paths of its scopes, once every unit was listed (see :meth:`scopes`)
        self.units: dict[str, list[str]] = {}
        _OPEN.append(self)

    @property
    def _cache(self) -> TreeCache:
        """The cache file, read on first need (a lookup of one scope never reads it)."""
        if self._cache_loaded is None:
            self._cache_loaded = TreeCache(self.root)
        return self._cache_loaded

    def close(self) -> None:
        """Stop the reader and write what was learnt to the cache."""
        self.repo.close()
        if self._cache_loaded is not None:
            self._cache_loaded.save()
        if self in _OPEN:
            _OPEN.remove(self)

    # -- every scope ---------------------------------------------------------------------

    def scopes(self) -> dict[str, CommittedScope]:
        """Every scope committed at HEAD, by path (global first, then unit by unit)."""
        if self._scopes is None:
            self._scopes = self._scan() if self.head else {}
        return self._scopes

    def _scan(self) -> dict[str, CommittedScope]:
        reader = self.repo.reader()
        root = reader.tree(f"{self.head}^{{tree}}") or []
        names = {e.name: e for e in root}
        if REPO_CACHE in names:  # a committed cache is nobody's cache: never trust it
            self.tracks_cache = True
            self._cache.drop()
        collections = {e.name: e.oid for e in root if e.is_tree and self.config.type_of(e.name)}
        if self.only is not None:
            known = self._listed_only(self.only | {"skills"}, set(collections))
        else:
            known = self._known_units(names, collections)
        top = names.get(REGISTRY_FILE)
        found_scopes = {GLOBAL: CommittedScope(GLOBAL, GLOBAL, registry_id(top))}
        self.units = {}
        for unit, scopes in known.items():
            self.units[unit] = [s.path for s in scopes or []]
            for scope in scopes or []:
                if scope.path == GLOBAL:
                    found_scopes[GLOBAL].skills = scope.skills
                else:
                    found_scopes[scope.path] = scope
        return found_scopes

    def _listed_only(
        self, units: frozenset[str], collections: set[str]
    ) -> dict[str, list[CommittedScope] | None]:
        """The scopes of ``units`` listed from git (a unit HEAD does not hold has none)."""
        listed = self._list(sorted(units), collections)
        return {u: summarise(u, listed.get(u, []), self.config) for u in sorted(units)}

    def _known_units(
        self, names: dict[str, TreeEntry], collections: dict[str, str]
    ) -> dict[str, list[CommittedScope] | None]:
        """Every unit's scopes: from the cache when its tree id is unchanged, the others
        listed from git (in one call)."""
        reader = self.repo.reader()
        members = reader.read(collections.values())
        units: dict[str, str] = {}
        for folder in ("skills", SEED):
            if folder in names and names[folder].is_tree:
                units[folder] = names[folder].oid
        for name, oid in collections.items():
            listed = members.get(oid)
            if listed is None or listed.data is None:
                continue
            for entry in _tree_entries(listed.data, oid):
                if entry.is_tree and not entry.name.startswith("."):
                    units[f"{name}/{entry.name}"] = entry.oid
        with paused_gc():
            known = {u: self._cached_unit(u, oid) for u, oid in units.items()}
            missing = [u for u, scopes in known.items() if scopes is None]
            if missing:
                if self.progress is not None:  # one git call: the bar starts, then ends
                    self.progress("git-list", 0, len(missing))
                listed_units = self._list(missing, set(collections))
                for unit in missing:
                    found = summarise(unit, listed_units.get(unit, []), self.config)
                    known[unit] = found
                    self._cache.put_unit(unit, units[unit], [s.as_json() for s in found])
                if self.progress is not None:
                    self.progress("git-list", len(missing), len(missing))
        self._cache.retain(set(units))
        return known

    def _cached_unit(self, unit: str, tree: str) -> list[CommittedScope] | None:
        stored = self._cache.unit(unit, tree)
        if stored is None:
            return None
        return [  # (the cache checked each row's shape)
            CommittedScope(path, kind, registry, dict(zip(names, blobs, strict=True)))
            for path, kind, registry, names, blobs in stored
        ]

    def _list(self, units: list[str], collections: set[str]) -> dict[str, list[list[str]]]:
        """``[mode, blob id, path]`` of every file below ``units``, by unit (one ls-tree)."""
        if len(units) > PATHSPEC_LIMIT:
            specs = sorted({u.partition("/")[0] + "/" for u in units})
        else:
            specs = [u + "/" for u in units]
        out = self.repo.run_bytes(
            "ls-tree", "-r", "-z", "--full-tree", self.head or "", "--", *specs
        )
        return unit_files(out, set(units), collections)

    # -- one scope -------------------------------------------------------------------------

    def scope(self, path: str) -> CommittedScope | None:
        """The committed scope at ``path`` (None when HEAD has none there): a few tree reads,
        or the full scan when it was made already."""
        if self._scopes is not None or not self.head:
            return self.scopes().get(path)
        if path not in self._single:
            self._single[path] = self._lookup(path)
        return self._single[path]

    def _lookup(self, path: str) -> CommittedScope | None:
        kinds = scopes_from_flags(self._flagged(path), self.config)
        if path not in kinds:
            return None
        reader = self.repo.reader()
        folder = f"{self.head}:{path}" if path != GLOBAL else f"{self.head}^{{tree}}"
        entries = {e.name: e for e in reader.tree(folder) or []}
        scope = CommittedScope(path, kinds[path], registry_id(entries.get(REGISTRY_FILE)))
        skills = entries.get("skills")
        listing = reader.tree(skills.oid) if skills is not None and skills.is_tree else []
        folders = {e.name: e for e in listing or [] if not e.name.startswith(".")}
        trees = reader.read([e.oid for e in folders.values() if e.is_tree])
        for name, entry in folders.items():
            if entry.mode == LINK_MODE:
                scope.skills[name] = LINK
            elif entry.oid in trees and trees[entry.oid].data is not None:
                inner = {e.name: e for e in _tree_entries(trees[entry.oid].data or b"", entry.oid)}
                skill_md = inner.get(SKILL_FILE)
                if skill_md is not None and not skill_md.is_tree:
                    scope.skills[name] = LINK if skill_md.mode == LINK_MODE else skill_md.oid
        return scope

    def _flagged(self, path: str) -> list[str]:
        """``path`` and its ancestor scope folders that hold an AGENTS.md at HEAD."""
        if path == GLOBAL:
            return []
        parts = path.split("/")
        folders = ["/".join(parts[:end]) for end in range(2, len(parts) + 1, 2)]
        flags = self.repo.resolve([f"{self.head}:{f}/{SCOPE_FLAG}" for f in folders])
        return [f for f in folders if f"{self.head}:{f}/{SCOPE_FLAG}" in flags]

    # -- contents ----------------------------------------------------------------------------

    def registries(self, scopes: list[CommittedScope]) -> dict[str, Registry]:
        """Committed registries by scope path: from the cache when their blob was parsed
        before, the others read in one batch (fetched first where a partial clone lacks
        them) and parsed as git hands them over. What cannot be read is an empty registry,
        named in :attr:`unread`."""
        found: dict[str, Registry] = {}
        fresh: dict[str, list[CommittedScope]] = {}  # blob id → the scopes whose registry it is
        blobs = [s.registry for s in scopes if s.registry and s.registry != LINK]
        known, root = self._cache.registries(blobs), self.root
        for scope in scopes:  # one look at the cache each: 300,000 of them at 100k people
            blob = scope.registry
            cached = known.get(blob) if blob and blob != LINK else None
            if cached is not None:  # entries known valid: made only when asked for
                found[scope.path] = Registry.known_valid(scope.path, root, cached)
            elif blob is None or blob == LINK:
                found[scope.path] = self._no_registry(scope)
            else:
                fresh.setdefault(blob, []).append(scope)
        stream = self.repo.stream_blobs(
            list(fresh), limit=JSON_LIMIT, what="registries", progress=self.progress
        )
        for blob, obj in counted(stream, self.progress, "git-registries", len(fresh)):
            for scope in fresh.pop(blob):
                found[scope.path] = self._parsed(scope, blob, obj)
        for blob, unread in fresh.items():  # not read: missing, or over the cap
            reason = self.repo.unread.get(blob, "over the 32 MB cap for a registry")
            for scope in unread:
                self.unread[_in_scope(scope.path, REGISTRY_FILE)] = reason
                found[scope.path] = Registry(scope.path, root)
        return {s.path: found[s.path] for s in scopes}

    def _no_registry(self, scope: CommittedScope) -> Registry:
        """The empty registry of a scope without one, or whose registry is a link."""
        if scope.registry == LINK:
            rel = _in_scope(scope.path, REGISTRY_FILE)
            self.unread[rel] = "committed as a link, which is not followed"
        return Registry(scope.path, self.root)

    def _parsed(self, scope: CommittedScope, blob: str, obj: GitObject) -> Registry:
        """The registry a committed blob holds (an empty one when it is over the cap)."""
        if obj.data is None:
            self.unread[_in_scope(scope.path, REGISTRY_FILE)] = "over the 32 MB cap for a registry"
            return Registry(scope.path, self.root)
        text = obj.data.decode("utf-8", "replace")
        clean = registry_if_clean(self.root, scope.path, text)
        if clean is None:
            return registry_from_text(self.root, scope.path, text)
        self._cache.put_registry(blob, clean.data["skills"])  # all a cached parse keeps
        return clean

    def descriptions(self, wanted: dict[Identity, str]) -> dict[Identity, str]:
        """Each skill's description, from its SKILL.md's blob id (read once, then cached by
        id; each parsed as git hands it over)."""
        known = self._cache.descriptions(list(wanted.values()))
        fresh = list(dict.fromkeys(b for b in wanted.values() if b != LINK and b not in known))
        stream = self.repo.stream_blobs(
            fresh, limit=SKILL_LIMIT, what="SKILL.md files", progress=self.progress
        )
        for blob, obj in counted(stream, self.progress, "git-skills", len(fresh)):
            text = _description(obj.data)
            if text is not None:
                self._cache.put_description(blob, text)
        result: dict[Identity, str] = {}
        for key, blob in wanted.items():
            text = known.get(blob)
            if text is not None:
                result[key] = text
            elif blob != LINK:
                rel = _in_scope(key.home, f"skills/{key.name}/{SKILL_FILE}")
                self.unread[rel] = self.repo.unread.get(blob, "over the 1 MB cap")
        return result

    def files_under(self, folder: str) -> dict[str, str]:
        """Regular files committed below ``folder`` (links left out) → blob id."""
        if not self.head:
            return {}
        listed = self.repo.tree(self.head, under=folder)
        return {path: oid for path, (mode, oid) in listed.items() if mode in ("100644", "100755")}

    def copies(self, files: dict[str, str]) -> dict[str, Path]:
        """Readable copies of committed files (path → blob id) that the checkout leaves out,
        at ``.exobrain-cache/committed/<path>``: search indexes them and shows where to read
        them. A copy is rewritten only when its blob changed; what cannot be read is left
        out (and named in :attr:`unread`)."""
        if not files:
            return {}
        base = cache_folder(self.root, COPIES)
        found: dict[str, Path] = {}
        stale = {rel: oid for rel, oid in files.items() if _blob_id(base / rel, oid) != oid}
        blobs = self.repo.blobs(stale.values(), limit=SKILL_LIMIT, what="files to search")
        for rel, oid in files.items():
            target = base / rel
            if rel in stale:
                data = blobs[oid].data if oid in blobs else None
                if data is None:
                    self.unread[rel] = self.repo.unread.get(oid, "over the 1 MB cap")
                    continue
                make_folders(self.root, target.parent, links=False)
                atomic_write_text(target, data, root=self.root, durable=False)
            found[rel] = target
        return found


#: Trees opened by this process: the CLI edge closes them when a command ends.
_OPEN: list[CommittedTree] = []


def close_all() -> None:
    """Close every tree still open (each saves its cache once, at the end of the command)."""
    for tree in list(_OPEN):
        tree.close()


def _in_scope(scope: str, rel: str) -> str:
    return rel if scope == GLOBAL else f"{scope}/{rel}"


def _blob_id(path: Path, oid: str) -> str | None:
    """The git blob id of the file at ``path`` (hashed like ``oid``), None when absent."""
    try:
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None
    if data is None:
        return None
    digest = hashlib.sha256 if len(oid) == 64 else hashlib.sha1
    return digest(b"blob %d\0%s" % (len(data), data)).hexdigest()


def _tree_entries(data: bytes, oid: str) -> list[TreeEntry]:
    return parse_tree(data, len(oid) // 2)


def _description(data: bytes | None) -> str | None:
    """The description in a SKILL.md's text ("" when it has none or does not parse)."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
        value = quick_meta_of(text, _SKILL_PATH, ("description",)).get("description")
    except (ExobrainError, UnicodeDecodeError):
        return ""
    return value if isinstance(value, str) else ""
