"""The state a command starts from: the repo root, its scopes, the connection and registries.

This is the one place that reads those files for the commands, so each command gets the same
picture and the same findings (broken files, stale connections) to report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.findings import ERROR, WARNING, Finding
from exobrain.registry import EXTERNAL, Entry, Registry, load_registry
from exobrain.resolve import Resolved, apply_supersession, override_targets, resolve
from exobrain.scopes import (CONNECTION_FILE, SEED, Chain, Discovery, Connection, ScopeConfig, build_chain,
                     discover_scopes, find_root, load_scope_config, read_connection, scope_at,
                     self_ids)

if TYPE_CHECKING:
    from exobrain.supersession import LinksReader


@dataclass
class Workspace:
    """An exobrain as seen from one machine's connection."""

    root: Path
    config: ScopeConfig
    connection: Connection
    chain: Chain
    registries: dict[str, Registry] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    _discovery: Discovery | None = field(default=None, repr=False)

    @property
    def my_ids(self) -> frozenset[str]:
        return self_ids(self.connection, self.chain)

    def chain_entries(self) -> list[Entry]:
        return [e for scope in self.chain.paths for e in self.registry(scope).entries]

    def registry(self, scope: str) -> Registry:
        """A scope's registry, loaded once; its findings are collected on first load."""
        if scope not in self.registries:
            registry = load_registry(self.root, scope)
            self.registries[scope] = registry
            self.findings.extend(registry.findings)
        return self.registries[scope]

    def resolve(self, agent: str | None = None, *,
                supersedes: LinksReader | None = None) -> list[Resolved]:
        """Resolve the chain for ``agent`` (None: no agent filtering), supersession applied
        (``supersedes`` reads the links instead of the SKILL.md files, see supersession)."""
        from exobrain.artifacts.versions import find_cycles, successors
        from exobrain.supersession import supersedes_edges

        entries = self.chain_entries()
        rows = resolve(entries, self.my_ids, agent, self._outside_declarations(entries))
        edges = supersedes_edges(self.root, entries, supersedes)
        if not edges:
            return rows
        cyclic = {node for cycle in find_cycles(edges) for node in cycle}
        return apply_supersession(rows, successors(edges), cyclic)

    def _outside_declarations(self, entries: list[Entry]) -> dict[tuple[str, ...], Entry]:
        known = {e.identity for e in entries if not e.is_override}
        missing = override_targets(entries) - known
        found: dict[tuple[str, ...], Entry] = {}
        if any(key[0] == EXTERNAL for key in missing):
            for registry in self.all_registries():
                for entry in registry.entries:
                    if not entry.is_override and entry.identity in missing:
                        found[entry.identity] = entry
            return found
        for home, name in {key for key in missing}:
            if scope_at(self.root, home, self.config) is None:
                continue
            for entry in self.registry(home).entries:
                if not entry.is_override and entry.name == name:
                    found[entry.identity] = entry
        return found

    def discover(self) -> Discovery:
        """Every scope in the repository (walked once); unreadable folders become findings."""
        if self._discovery is None:
            self._discovery = discover_scopes(self.root, self.config)
            for folder, reason in self._discovery.problems:
                self.findings.append(Finding(ERROR, "scope-unreadable", folder, reason,
                                             bad_input=True))
        return self._discovery

    def all_registries(self, *, include_seed: bool = True) -> list[Registry]:
        """Every scope's registry in the repository (existing files only), in chain order."""
        scopes = [s for s in self.discover().scopes if include_seed or s.path != SEED]
        return [r for r in (self.registry(s.path) for s in scopes) if r.exists or r.findings]

    @property
    def has_bad_input(self) -> bool:
        return any(f.bad_input for f in self.findings)


def open_workspace(repo: Path | None = None) -> Workspace:
    """Find the exobrain (``repo`` or the enclosing git root) and read its connection."""
    root = find_root(repo) if repo is None else _explicit_root(repo)
    config = load_scope_config(root)
    return workspace_for(root, config, read_connection(root))


def workspace_for(root: Path, config: ScopeConfig, connection: Connection) -> Workspace:
    """The exobrain at ``root`` seen through ``connection`` (which need not be stored yet)."""
    chain = build_chain(root, connection.connected_scopes, config)
    findings = [Finding(WARNING, "connection-scope", CONNECTION_FILE, w.split(": ", 1)[-1],
                        bad_input=True) for w in chain.warnings]
    return Workspace(root, config, connection, chain, findings=findings)


def _explicit_root(repo: Path) -> Path:
    from exobrain.errors import UsageError

    path = repo.expanduser().resolve()
    if not path.is_dir():
        raise UsageError(f"--repo {repo}: no such folder")
    return path
