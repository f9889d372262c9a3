"""The state a command starts from: the repo root, its scopes, the connection and registries.

This is the one place that reads those files for the commands, so each command gets the same
picture and the same findings (broken files, stale connections) to report.

In a sparse checkout a file may be missing from the disk only because the checkout leaves it
out; then git's objects hold it (:mod:`exobrain.committed`), and the workspace reads it from
there: a connected scope, an override's home or a whole-repository scan outside the cone is
still seen, and whatever could not be read is said in one warning line. A file on disk costs
no git call at all, so a command that needs only the chain pays nothing for this.
"""

from __future__ import annotations

import os
from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.dependencies import Edges, dependency_cycles, dependency_edges, pull_dependencies
from exobrain.errors import UsageError
from exobrain.findings import ERROR, WARNING, Finding
from exobrain.model import EXTERNAL, GLOBAL, Identity
from exobrain.refs import SkillRef, canonical, entry_home
from exobrain.registry import REGISTRY_FILE, Entry, Registry, load_registry
from exobrain.resolve import Resolved, override_targets, resolve
from exobrain.scan import ScopeScan, scan_scopes
from exobrain.scopes import (
    CONNECTION_FILE,
    SCOPE_FLAG,
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
from exobrain.skillmd import SKILL_FILE

if TYPE_CHECKING:  # git is imported only by commands that read from it
    from exobrain.checkout import Checkout
    from exobrain.committed import CommittedScope, CommittedTree
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
    _checkout: Checkout | None = field(default=None, repr=False)
    _tree: CommittedTree | None = field(default=None, repr=False)
    _listed_scopes: dict[str, CommittedScope] | None = field(default=None, repr=False)  # scan's
    _outside: set[str] = field(default_factory=set, repr=False)  # scopes read from git
    _listed: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)  # off_disk's
    _present: dict[str, bool] = field(default_factory=dict, repr=False)  # folders, memoised
    _depends: Edges | None = field(default=None, repr=False)

    @property
    def my_ids(self) -> frozenset[str]:
        return self_ids(self.connection, self.chain)

    def chain_entries(self) -> list[Entry]:
        return [e for scope in self.chain.paths for e in self.registry(scope).entries]

    def registry(self, scope: str) -> Registry:
        """A scope's registry, loaded once; its findings are collected on first load."""
        if scope not in self.registries:
            registry = None
            if scope in self._outside or self.outside(_in_scope(scope, REGISTRY_FILE)):
                registry = self._committed_registries([scope]).get(scope)
            if registry is None:
                registry = load_registry(self.root, scope)
            self.registries[scope] = registry
            self.findings.extend(registry.findings)
        return self.registries[scope]

    def checkout(self) -> Checkout:
        """How much of the repository the working tree holds (asked of git once)."""
        if self._checkout is None:
            from exobrain.checkout import read_checkout

            self._checkout = read_checkout(self.root)
        return self._checkout

    def outside(self, rel: str) -> bool:
        """Whether the file at ``rel`` is off the disk because the sparse checkout leaves it
        out (git's objects then hold it). Free when the file is on disk."""
        if os.path.lexists(self.root / rel):
            return False
        checkout = self.checkout()
        return checkout.sparse and not checkout.holds(rel)

    def committed(self) -> CommittedTree:
        """The repository as committed at HEAD (opened once; see :mod:`exobrain.committed`)."""
        if self._tree is None:
            from exobrain.committed import CommittedTree

            self._tree = CommittedTree(self.root, self.config, self.checkout())
        return self._tree

    def scope_at(self, path: str) -> Scope | None:
        """The scope at ``path``: on disk, or committed where the checkout leaves it out."""
        found = scope_at(self.root, path, self.config)
        if found is not None or path in (GLOBAL, SEED):
            return found
        if not self.outside(_in_scope(path, SCOPE_FLAG)):
            return None
        committed = self.committed().scope(path)
        self._note_unread()
        if committed is None:
            return None
        self._outside.add(path)
        return Scope(committed.path, committed.type)

    def _committed_scope(self, path: str) -> CommittedScope | None:
        if self._listed_scopes is not None:  # asked once per scope and check: kept at hand
            return self._listed_scopes.get(path)
        tree = self.committed()
        return tree.scopes().get(path) if self._scan is not None else tree.scope(path)

    def _committed_registries(self, scopes: list[str]) -> dict[str, Registry]:
        tree = self.committed()
        found = [c for c in (self._committed_scope(s) for s in scopes) if c is not None]
        registries = tree.registries(found)
        self._note_unread()
        return registries

    def skill_exists(self, home: str, name: str) -> bool:
        """Whether ``<home>/skills/<name>/SKILL.md`` exists: on disk, or committed where the
        checkout leaves it out."""
        if home not in self._outside:
            rel = _in_scope(home, f"skills/{name}/{SKILL_FILE}")
            if os.path.isfile(os.path.join(self.root, rel)):
                return True
            if not self.outside(rel):
                return False
        committed = self._committed_scope(home)
        return committed is not None and name in committed.skills

    def is_outside(self, scope: str) -> bool:
        """Whether the scope's folder is off the disk (read from git's objects)."""
        return scope in self._outside

    def off_disk(self, scope: str) -> bool:
        """Whether a scope the checkout leaves out has no folder on the disk at all, so no
        file of it needs a look there (a scope on disk: False). Asked of each parent folder's
        listing, made once: 300,000 scopes outside the cone cost a few listings, not a stat
        each."""
        return scope in self._outside and not self._on_disk(scope)

    def _on_disk(self, rel: str) -> bool:
        present = self._present.get(rel)
        if present is None:
            parent, _, name = rel.rpartition("/")
            present = (not parent or self._on_disk(parent)) and name in self._listing(parent)
            self._present[rel] = present
        return present

    def _listing(self, folder: str) -> frozenset[str]:
        names = self._listed.get(folder)
        if names is None:
            try:
                names = frozenset(os.listdir(self.root / folder))
            except OSError:  # gone or not a folder: nothing below it is on the disk
                names = frozenset()
            self._listed[folder] = names
        return names

    def committed_skills(self, scope: str) -> Set[str]:
        """The names of the skill folders git holds for a scope the checkout leaves out, in
        git's order (a set-like view: asking whether one is there costs no list)."""
        committed = self._committed_scope(scope) if scope in self._outside else None
        return committed.skills.keys() if committed is not None else frozenset()

    def committed_descriptions(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """Descriptions of in-tree skills whose SKILL.md the checkout leaves out, by (home,
        name); the others are read from disk by the caller."""
        wanted: dict[tuple[str, str], str] = {}
        scopes: dict[str, CommittedScope | None] = {}
        for key in keys:
            home = key[0]
            if home not in scopes:
                scopes[home] = self._committed_scope(home)
            committed = scopes[home]
            blob = committed.skills.get(key[1]) if committed is not None else None
            if blob:
                wanted[key] = blob
        found = self.committed().descriptions(wanted) if wanted else {}
        self._note_unread()
        return found

    def skill_copies(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], Path]:
        """Readable copies of the SKILL.md of skills whose scope the checkout leaves out (see
        :meth:`CommittedTree.copies`), by (home, name)."""
        wanted: dict[str, tuple[str, str]] = {}
        blobs: dict[str, str] = {}
        for home, name in keys:
            committed = self._committed_scope(home) if home in self._outside else None
            blob = committed.skills.get(name) if committed is not None else None
            if blob and blob != "link":
                rel = _in_scope(home, f"skills/{name}/{SKILL_FILE}")
                wanted[rel], blobs[rel] = (home, name), blob
        copies = self.committed().copies(blobs) if blobs else {}
        self._note_unread()
        return {wanted[rel]: path for rel, path in copies.items()}

    def knowledge_copies(self, scope: str, folder: str) -> dict[str, Path]:
        """Readable copies of the files below ``<scope>/<folder>`` when the checkout leaves
        that scope out, by path below the folder."""
        if scope not in self._outside:
            return {}
        base = _in_scope(scope, folder)
        tree = self.committed()
        files = tree.files_under(base)
        copies = tree.copies(files)
        self._note_unread()
        return {rel[len(base) + 1 :]: path for rel, path in copies.items()}

    def reads_committed(self, home: str, name: str) -> bool:
        """Whether a skill's SKILL.md is read from git's objects rather than the disk."""
        return home in self._outside or self.outside(_in_scope(home, f"skills/{name}/{SKILL_FILE}"))

    def _note_unread(self) -> None:
        """One warning line for everything outside the checkout git could not give us."""
        if self._tree is None or not self._tree.unread:
            return
        self.findings[:] = [f for f in self.findings if f.code != NOT_READ]
        unread = self._tree.unread
        first = next(iter(unread))
        reasons = sorted(set(unread.values()))
        self.findings.append(
            Finding(
                WARNING,
                NOT_READ,
                first,
                f"{len(unread)} file(s) outside the sparse checkout could not be read from "
                f"git ({'; '.join(reasons)}), so they are left out of this answer",
                bad_input=False,
            )
        )

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
        entries = self.chain_entries()
        rows = resolve(entries, self.my_ids, agent, self._outside_declarations(entries))
        rows = redirect(rows, supersedes_edges(self.root, entries, supersedes))
        return self.with_dependencies(rows) if dependencies else rows

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
            checkout = self.checkout()
            if checkout.sparse:
                scan.scopes = order_chain(scan.scopes + self._left_out(scan), self.config)
            self._scan = scan
        return self._scan

    def _left_out(self, scan: ScopeScan) -> list[Scope]:
        """The committed scopes the sparse checkout leaves out (whole units at once when no
        folder of theirs is in the cone); they are read from git from now on."""
        checkout, tree = self.checkout(), self.committed()
        committed = self._listed_scopes = tree.scopes()
        on_disk = {s.path for s in scan.scopes}
        found: list[Scope] = []
        for unit, paths in tree.units.items():
            touched = checkout.touches(unit)
            for path in paths:
                if path in on_disk or path == GLOBAL:
                    continue
                if touched and checkout.holds(_in_scope(path, SCOPE_FLAG)):
                    continue  # in the cone but gone from the disk: deleted here
                found.append(Scope(path, committed[path].type))
        self._outside.update(s.path for s in found)
        return found

    def all_registries(self, *, include_seed: bool = True) -> list[Registry]:
        """Every scope's registry in the repository (existing files only), in chain order."""
        scopes = [s for s in self.scan().scopes if include_seed or s.path != SEED]
        fresh = [
            s.path for s in scopes if s.path in self._outside and s.path not in self.registries
        ]
        if fresh:
            for path, registry in self._committed_registries(fresh).items():
                self.registries[path] = registry
                self.findings.extend(registry.findings)
        return [r for r in (self.registry(s.path) for s in scopes) if r.exists or r.findings]

    @property
    def reads_git(self) -> bool:
        """Whether this workspace read anything from git's objects (a sparse checkout)."""
        return self._tree is not None

    @property
    def scanned(self) -> bool:
        """Whether every scope of the repository was walked (:meth:`scan`)."""
        return self._scan is not None

    @property
    def has_bad_input(self) -> bool:
        return any(f.bad_input for f in self.findings)


NOT_READ = "not-read"


def _in_scope(scope: str, rel: str) -> str:
    """``rel`` inside the scope's folder, relative to the root."""
    return rel if scope == GLOBAL else f"{scope}/{rel}"


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
    ws.findings = [
        Finding(WARNING, "connection-scope", CONNECTION_FILE, w.split(": ", 1)[-1])
        for w in ws.chain.warnings
    ] + ws.findings
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
