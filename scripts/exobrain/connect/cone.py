"""The sparse checkout that follows the connection: which folders a machine needs on disk.

A big exobrain is cloned with ``git clone --filter=blob:none --sparse`` and then holds only
what its connection uses, as a cone-mode sparse checkout (git keeps every file at the root
and in each listed folder, and the files directly inside the listed folders' parents):

* the framework: every folder at the root that is not a scope collection (the toolkit, the
  agent docs, CI, the global ``skills/``), except ``signals/`` and ``seed/``;
* for every scope in the chain, its folders that are not collections (``skills/``,
  ``knowledge/``…), so its registry and flag come along; other scopes nested inside it stay
  out unless they are in the chain too;
* the folder of every skill that resolves on from outside the chain (an opt-in to another
  group's skill, a successor it is redirected to);
* the registry that declares each external skill the chain's overrides name (its scope's
  files come with ``<scope>/skills/<name>``, a folder that need not exist);
* one's own signal ledgers, ``signals/<me>`` (``signals/weights.json`` comes with it).

``connect-agent … --sparse`` and ``exobrain sparse --apply`` set it (``git sparse-checkout
set --cone``, which also fetches the blobs a partial clone lacks for the new folders); with
``"sparse": true`` in ``.exobrain.json``, every relink — the git hooks run one after each pull
and rebase — brings it up to date, so the cone follows the connection and the registries.
"""

from __future__ import annotations

from dataclasses import dataclass

from exobrain.model import GLOBAL, Tier
from exobrain.scopes import SEED, Connection
from exobrain.signals.ledger import SIGNALS_DIR
from exobrain.util.git import Git
from exobrain.workspace import Workspace, open_workspace, workspace_for

#: The connection file's key that turns the cone on (``connect-agent --sparse``).
SPARSE_KEY = "sparse"


@dataclass(frozen=True)
class Cone:
    """The folders the connection needs, and the cone the checkout has now (None: full)."""

    folders: tuple[str, ...]
    current: tuple[str, ...] | None

    @property
    def added(self) -> list[str]:
        return sorted(set(self.folders) - set(self.current or ()))

    @property
    def removed(self) -> list[str]:
        return sorted(set(self.current or ()) - set(self.folders))

    @property
    def changes(self) -> bool:
        return self.current is None or set(self.folders) != set(self.current)


def wants_sparse(ws: Workspace) -> bool:
    """Whether the connection keeps a sparse checkout (``"sparse": true``)."""
    return ws.connection.raw.get(SPARSE_KEY) is True


def cone_for(ws: Workspace) -> Cone:
    """The cone this workspace's connection needs (see the module) beside the current one."""
    folders: set[str] = set()
    tree = ws.sparse.committed()
    reader = tree.repo.reader()
    if tree.head:
        for entry in reader.tree(f"{tree.head}^{{tree}}") or []:
            framework = entry.name not in (SEED, SIGNALS_DIR) and not ws.config.type_of(entry.name)
            if entry.is_tree and framework:
                folders.add(entry.name)
    for scope in ws.chain.scopes:
        if scope.path == GLOBAL:
            continue
        folders.add(f"{scope.path}/skills")
        inside = reader.tree(f"{tree.head}:{scope.path}") if tree.head else None
        for entry in inside or []:
            if entry.is_tree and not ws.config.type_of(entry.name):
                folders.add(f"{scope.path}/{entry.name}")
    chain = set(ws.chain.paths)
    for row in ws.resolve():
        if row.tier != Tier.OFF and not row.is_external and row.home not in chain:
            folders.add(_skill_folder(row.home, row.name))
    folders.update(_external_homes(ws, chain))
    folders.update(f"{SIGNALS_DIR}/{me}" for me in sorted(ws.my_ids))
    current = ws.sparse.checkout().cone if ws.sparse.checkout().sparse else None
    return Cone(tuple(_outermost(folders)), current)


def _skill_folder(home: str, name: str) -> str:
    return f"skills/{name}" if home == GLOBAL else f"{home}/skills/{name}"


def _external_homes(ws: Workspace, chain: set[str]) -> set[str]:
    """``<scope>/skills/<name>`` for each external declaration an override in the chain names
    when no registry of the chain declares it."""
    entries = ws.chain_entries()
    declared = {e.identity for e in entries if not e.is_override}
    wanted = {e.identity for e in entries if e.is_override and e.is_external} - declared
    if not wanted:
        return set()
    return {
        _skill_folder(registry.scope, entry.name)
        for registry in ws.all_registries()
        if registry.scope not in chain
        for entry in registry.entries
        if not entry.is_override and entry.source and entry.identity in wanted
    }


def _outermost(folders: set[str]) -> list[str]:
    """The folders without the ones another folder of the set already holds."""
    return sorted(
        folder
        for folder in folders
        if not any(folder[:at] in folders for at, c in enumerate(folder) if c == "/")
    )


def apply_cone(ws: Workspace, cone: Cone) -> None:
    """Make the checkout that cone (``git sparse-checkout set --cone``; a partial clone
    fetches the new folders' blobs in one go). The index turns sparse too (one entry per
    folder left out), so git's own commands stay fast in a big repository."""
    args = ["sparse-checkout", "set", "--cone"]
    if not ws.sparse.checkout().sparse_index:
        args.append("--sparse-index")
    stdin = "".join(f"{folder}\n" for folder in cone.folders).encode()
    Git(allow_file=True).run([*args, "--stdin"], cwd=ws.root, remote=True, stdin=stdin)


def follow(ws: Workspace, connection: Connection, *, dry_run: bool, notes: list[str]) -> Workspace:
    """Make the checkout the cone ``connection`` needs and return the workspace read again
    (``dry_run``: only say what would change). Twice at most: a skill that resolves on only
    once its files are on disk (a successor it is redirected to) adds one more folder."""
    for _ in range(2):
        preview = workspace_for(ws.root, ws.config, connection)
        wanted = cone_for(preview)
        if not wanted.changes:
            break
        added, removed = len(wanted.added), len(wanted.removed)
        if dry_run:
            notes.append(f"sparse checkout: would add {added} and remove {removed} folder(s)")
            return ws
        apply_cone(preview, wanted)
        notes.append(f"sparse checkout: {added} folder(s) added, {removed} removed")
        ws = open_workspace(ws.root)
    return ws
