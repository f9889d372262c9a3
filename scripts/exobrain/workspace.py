"""The state a command starts from: the repo root, its scopes, the connection and registries.

This is the one place that reads those files for the commands, so each command gets the same
picture and the same findings (broken files, stale connections) to report.

In a sparse checkout what the checkout leaves out is read from git's objects instead
(:mod:`exobrain.sparse.view`, the workspace's ``sparse``): a connected scope, an override's
home or a whole-repository scan outside the cone is still seen.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from exobrain.dependencies import Edges, dependency_cycles, dependency_edges, pull_dependencies
from exobrain.errors import UsageError
from exobrain.findings import ERROR, WARNING, Finding
from exobrain.model import EXTERNAL, GLOBAL, Identity, Tier, link_names
from exobrain.refs import SkillRef, canonical, entry_home
from exobrain.registry.entries import REGISTRY_FILE, Entry, Registry, load_registry
from exobrain.resolve import Resolved, override_targets, resolve
from exobrain.scan import ScopeScan, scan_scopes
from exobrain.scopes import (
    CONNECTION_FILE,
    SEED,
    Chain,
    Connection,
    Scope,
    ScopeConfig,
    build_chain,
    find_root,
    load_scope_config,
    order_chain,
    read_connection,
    scope_at,
    self_ids,
)
from exobrain.skillmd import SKILL_FILE, description_of
from exobrain.sparse.view import SparseView, in_scope
from exobrain.supersession import LinksReader, redirect, supersedes_edges


@dataclass
class Workspace:
    """An exobrain as seen from one machine's connection."""

    root: Path
    config: ScopeConfig
    connection: Connection
    chain: Chain
    registries: dict[str, Registry] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what an answer covered, said once
    _scan: ScopeScan | None = field(default=None, repr=False)
    _disk: ScopeScan | None = field(default=None, repr=False)
    #: note the folders the scan read, so a kept workspace can tell it is still right
    watch_scan: bool = False
    #: what the sparse checkout leaves out, read from git's objects
    sparse: SparseView = field(init=False, repr=False)
    _depends: Edges | None = field(default=None, repr=False)
    _linked_cache: frozenset[Identity] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.sparse = SparseView(self.root, self.config, self.findings)

    @property
    def my_ids(self) -> frozenset[str]:
        return self_ids(self.connection, self.chain)

    def chain_entries(self) -> list[Entry]:
        return [e for scope in self.chain.paths for e in self.registry(scope).entries]

    def registry(self, scope: str) -> Registry:
        """A scope's registry, loaded once; its findings are collected on first load."""
        if scope not in self.registries:
            registry = None
            if self.sparse.scope_left_out(scope) or self.sparse.file_left_out(
                in_scope(scope, REGISTRY_FILE)
            ):
                registry = self.sparse.registries([scope]).get(scope)
            if registry is None:
                registry = load_registry(self.root, scope)
            self.registries[scope] = registry
            self.findings.extend(registry.findings)
        return self.registries[scope]

    def scope_at(self, path: str) -> Scope | None:
        """The scope at ``path``: on disk, or committed where the checkout leaves it out."""
        found = scope_at(self.root, path, self.config)
        if found is not None or path in (GLOBAL, SEED):
            return found
        return self.sparse.scope(path)

    def skill_exists(self, home: str, name: str) -> bool:
        """Whether ``<home>/skills/<name>/SKILL.md`` exists: on disk, or committed where the
        checkout leaves it out."""
        if not self.sparse.scope_left_out(home):
            rel = in_scope(home, f"skills/{name}/{SKILL_FILE}")
            if os.path.isfile(os.path.join(self.root, rel)):
                return True
            if not self.sparse.file_left_out(rel):
                return False
        committed = self.sparse.committed_scope(home)
        return committed is not None and name in committed.skills

    def reads_committed(self, home: str, name: str) -> bool:
        """Whether a skill's SKILL.md is read from git's objects rather than the disk."""
        return self.sparse.scope_left_out(home) or self.sparse.file_left_out(
            in_scope(home, f"skills/{name}/{SKILL_FILE}")
        )

    def descriptions(self, skills: list[Identity]) -> dict[Identity, str]:
        """Each skill's description: an in-tree one's from the disk, or from git's objects
        (in one batch) for those a sparse checkout leaves out; "" for an external skill and
        when unreadable (a warning in :attr:`findings` for a SKILL.md that is there but
        broken)."""
        found: dict[Identity, str] = {}
        elsewhere: list[Identity] = []
        for key in skills:
            home, name = key.home, key.name
            if home == EXTERNAL:
                found[key] = ""
            elif self.reads_committed(home, name):
                elsewhere.append(key)
            else:
                found[key] = description_of(self.root, home, name, self.findings)
        if elsewhere:
            committed = self.sparse.committed_descriptions(elsewhere)
            for key in elsewhere:
                found[key] = committed.get(key, "")
        return found

    def resolve(
        self,
        agent: str | None = None,
        *,
        supersedes: LinksReader | None = None,
        dependencies: bool = True,
    ) -> list[Resolved]:
        """Resolve the chain for ``agent`` (None: no agent filtering), supersession applied
        (``supersedes`` reads the links instead of the SKILL.md files, see supersession), then
        the dependencies of what is linked (``dependencies=False``: left out, for a caller
        that ranks skills rather than links them)."""
        return self.named(self._resolved(agent, supersedes, dependencies))

    def _resolved(
        self, agent: str | None, supersedes: LinksReader | None = None, dependencies: bool = True
    ) -> list[Resolved]:
        entries = self.chain_entries()
        rows = resolve(entries, self.my_ids, agent, self._outside_declarations(entries))
        rows = redirect(rows, supersedes_edges(self.root, entries, supersedes))
        return self.with_dependencies(rows) if dependencies else rows

    def named(self, rows: list[Resolved]) -> list[Resolved]:
        """``rows`` with the folder names their skills are linked or installed under: the
        plain name unless another skill linked for any agent connected here (or for no agent
        in particular) has it too, then the told-apart name (:func:`link_names`). Rows a
        caller raised itself (a persona's) count too. Nothing is computed when no two skills
        the chain mentions share a name, the usual case."""
        names = [e.name for e in self.chain_entries()] + [r.name for r in rows]
        if len(set(names)) == len(names) or not self._shared_names(rows):
            return rows
        linked = self._linked() | {r.identity for r in rows if _is_linked(r)}
        told = {i for i, name in link_names(linked).items() if name != i.name}
        return [replace(r, link=r.identity.told_apart) if r.identity in told else r for r in rows]

    def _shared_names(self, rows: list[Resolved]) -> bool:
        """Whether two different skills the chain or ``rows`` mention share a name."""
        seen: dict[str, Identity] = {}
        identities = [e.identity for e in self.chain_entries()] + [r.identity for r in rows]
        return any(seen.setdefault(i.name, i) != i for i in identities)

    def _linked(self) -> frozenset[Identity]:
        """Every skill linked or installed for no agent in particular or for an agent
        connected on this clone (project or user level): the names are chosen over all of
        them, so agents that share a folder see one name per skill."""
        if self._linked_cache is None:
            agents: list[str | None] = [None, *self.connection.every_agent]
            self._linked_cache = frozenset(
                r.identity for agent in agents for r in self._resolved(agent) if _is_linked(r)
            )
        return self._linked_cache

    def with_dependencies(self, rows: list[Resolved]) -> list[Resolved]:
        """``rows`` with what their ``always`` skills depend on raised to ``always`` (also for
        rows a caller raised itself, e.g. connect-agent's persona preload)."""
        if self._depends is None:
            self._depends = dependency_edges(self.root, self.chain_entries())
            for file, cycle in dependency_cycles(self._depends):
                self.findings.append(
                    Finding(
                        WARNING,
                        "dependency-cycle",
                        file,
                        f"dependencies.skills: skills depend on each other in a circle: "
                        f"{cycle}; all of them are linked, remove one dependency to break it",
                    )
                )
        return pull_dependencies(rows, self._depends)

    def _outside_declarations(self, entries: list[Entry]) -> dict[Identity, Entry]:
        known = {e.identity for e in entries if not e.is_override}
        missing = override_targets(entries) - known
        found: dict[Identity, Entry] = {}
        if any(key.is_external for key in missing):
            for registry in self.all_registries():
                for entry in registry.entries:
                    if not entry.is_override and entry.identity in missing:
                        found[entry.identity] = entry
            return found
        for home, name, _ in missing:
            if self.scope_at(home) is None:
                continue
            for entry in self.registry(home).entries:
                if not entry.is_override and entry.name == name:
                    found[entry.identity] = entry
        return found

    def disk_scan(self) -> ScopeScan:
        """The scope folders on the disk (walked once; in a sparse checkout, the cone's)."""
        if self._disk is None:
            self._disk = scan_scopes(self.root, self.config, watch=self.watch_scan)
        return self._disk

    def scan(self) -> ScopeScan:
        """Every scope in the repository (walked once); unreadable folders become findings.
        In a sparse checkout the scopes it leaves out come from git's objects."""
        if self._scan is None:
            disk = self.disk_scan()
            scan = ScopeScan(list(disk.scopes), list(disk.problems))
            for folder, reason in scan.problems:
                self.findings.append(
                    Finding(ERROR, "scope-unreadable", folder, reason, bad_input=True)
                )
            if self.sparse.checkout().sparse:
                left_out = self.sparse.scopes_left_out(scan.scopes)
                scan.scopes = order_chain(scan.scopes + left_out, self.config)
            self._scan = scan
        return self._scan

    def all_registries(self, *, include_seed: bool = True) -> list[Registry]:
        """Every scope's registry in the repository (existing files only), in chain order."""
        scopes = [s for s in self.scan().scopes if include_seed or s.path != SEED]
        fresh = [
            s.path
            for s in scopes
            if self.sparse.scope_left_out(s.path) and s.path not in self.registries
        ]
        if fresh:
            for path, registry in self.sparse.registries(fresh).items():
                self.registries[path] = registry
                self.findings.extend(registry.findings)
        return [r for r in (self.registry(s.path) for s in scopes) if r.exists or r.findings]

    @property
    def scanned(self) -> bool:
        """Whether every scope of the repository was walked (:meth:`scan`)."""
        return self._scan is not None

    @property
    def has_bad_input(self) -> bool:
        return any(f.bad_input for f in self.findings)


def _is_linked(row: Resolved) -> bool:
    """Whether the skill gets a folder of its own among an agent's skills: linked at
    ``always``, or an external skill installed (``optional`` ones into ``skills-optional``)."""
    return row.tier == Tier.ALWAYS or (row.is_external and row.tier == Tier.OPTIONAL)


def find_declaration(ws: Workspace, ref: SkillRef) -> Entry:
    """The declaration a reference names: an explicit home, else the deepest in my chain,
    else the only one in the repository. Unknown or ambiguous → a usage error that lists the
    candidates."""
    if ref.home is not None:
        # an in-tree home names its scope: read that one registry, not the whole repository
        in_tree = not ref.home.startswith(f"{EXTERNAL}/")
        if in_tree and ws.scope_at(ref.home) is None:
            raise UsageError(
                f"no skill {ref.name!r} is declared at {ref.home} (not a scope)",
                hint="skills-status --all lists every declared skill and its scope",
            )
        for registry in [ws.registry(ref.home)] if in_tree else ws.all_registries():
            for entry in registry.entries:
                if (
                    not entry.is_override
                    and entry.name == ref.name
                    and entry_home(entry) == ref.home
                ):
                    return entry
        raise UsageError(
            f"no skill {ref.name!r} is declared at {ref.home}",
            hint="skills-status --all lists every declared skill and its scope",
        )
    chain = set(ws.chain.paths)
    in_chain = [e for e in ws.chain_entries() if not e.is_override and e.name == ref.name]
    if in_chain:
        return in_chain[-1]
    found = [
        e
        for r in ws.all_registries()
        for e in r.entries
        if not e.is_override and e.name == ref.name and e.scope not in chain
    ]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(
            f"no skill named {ref.name!r} is declared in this repository",
            hint="skills-status --all lists every declared skill",
        )
    options = ", ".join(canonical(e) for e in found)
    raise UsageError(
        f"{ref.name!r} is declared in several scopes: {options}",
        hint="name one with skill:NAME@HOME",
    )


def open_workspace(repo: Path | None = None) -> Workspace:
    """Find the exobrain (``repo`` or the enclosing git root) and read its connection."""
    root = exobrain_root(repo)
    config = load_scope_config(root)
    return workspace_for(root, config, read_connection(root))


def workspace_for(root: Path, config: ScopeConfig, connection: Connection) -> Workspace:
    """The exobrain at ``root`` seen through ``connection`` (which need not be stored yet)."""
    ws = Workspace(root, config, connection, Chain([]))
    ws.chain = build_chain(root, connection.connected_scopes, config, ws.scope_at)
    # a connected scope that is gone is a warning, not bad input: the rest of the chain is
    # whole, so commands carry on (and connect-agent prunes what that scope had linked)
    ws.findings[:0] = [  # in place: ws.sparse adds its warning to the same list
        Finding(WARNING, "connection-scope", CONNECTION_FILE, w.split(": ", 1)[-1])
        for w in ws.chain.warnings
    ]
    return ws


def exobrain_root(repo: Path | None) -> Path:
    """The exobrain a command works on: ``--repo`` when given (it must be a folder), else the
    git repository around the current folder."""
    if repo is None:
        return find_root()
    path = repo.expanduser().resolve()
    if not path.is_dir():
        raise UsageError(f"--repo {repo}: no such folder")
    return path
