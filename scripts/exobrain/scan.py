"""Walking the repository for its scopes: every folder with an ``AGENTS.md`` directly inside a
collection folder, nested collections included (see :mod:`exobrain.scopes` for what a scope
is). A command that needs the whole repository walks it once; a process that keeps the
answer (the MCP server) can ask the walk whether it is still right from the mtimes of the
folders it read, instead of walking again.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.model import GLOBAL
from exobrain.scopes import LOCAL, SCOPE_FLAG, SEED, Scope, ScopeConfig, order_chain, scope_at
from exobrain.util.fileio import is_file

#: A folder changed this recently when it was walked may change again within the same tick
#: of its file system's clock (2 s on the coarsest) without its mtime moving.
RACY_NS = 2_000_000_000


@dataclass
class ScopeScan:
    """Every scope found in the repository plus the folders that could not be read.

    ``folders`` holds the modification time of every folder the answer depends on (each
    collection folder listed, each folder looked into for an ``AGENTS.md``), taken before it
    was read: a scope appears or disappears only by an entry added, removed or renamed in one
    of them, which moves its mtime. So a process that keeps a scan (the MCP server) knows it
    is still right from a few thousand ``stat`` calls instead of walking again."""

    scopes: list[Scope]
    problems: list[tuple[str, str]] = field(default_factory=list)  # (folder, reason)
    folders: dict[str, int] = field(default_factory=dict)  # path → st_mtime_ns
    started: int = 0  # time.time_ns() when the walk began

    def still_valid(self) -> bool:
        """Whether walking again would find the same scopes: no folder of :attr:`folders`
        moved, and none had moved so shortly before the walk that a change within the same
        clock tick could hide (then only a new walk can tell)."""
        if self.problems or not self.folders:
            return False
        return all(
            mtime < self.started - RACY_NS and _folder_mtime(folder) == mtime
            for folder, mtime in self.folders.items()
        )


def _listing(path: str) -> dict[str, os.DirEntry[str]] | OSError:
    """The entries of the folder ``path`` by name, or why it cannot be listed."""
    try:
        with os.scandir(path) as entries:
            return {entry.name: entry for entry in entries}
    except OSError as exc:
        return exc


def _folder_mtime(path: str) -> int:
    """A folder's st_mtime_ns; -1 when it is absent or not a folder."""
    try:
        info = os.stat(path)
    except OSError:
        return -1
    return info.st_mtime_ns if stat.S_ISDIR(info.st_mode) else -1


def scan_scopes(
    root: Path,
    config: ScopeConfig,
    keep: Callable[[Scope], bool] | None = None,
    *,
    watch: bool = False,
) -> ScopeScan:
    """Walk the collection folders and return every scope, in chain order. ``keep`` prunes:
    a scope it refuses is left out with everything below it (never walked). ``watch`` notes
    the folders' mtimes (:attr:`ScopeScan.folders`; one more ``stat`` per folder)."""
    started = time.time_ns()
    found: list[Scope] = [Scope(GLOBAL, GLOBAL)]
    problems: list[tuple[str, str]] = []
    folders: dict[str, int] = {}

    def seen(path: str) -> None:
        """Note a folder's mtime before reading it. One that is not there needs no note:
        making it moves its parent's, which is noted."""
        if watch and (mtime := _folder_mtime(path)) != -1:
            folders[path] = mtime

    top = os.fspath(root)
    seen(top)
    for special in (SEED, LOCAL):
        seen(os.path.join(top, special))
    if is_file(root / SEED / SCOPE_FLAG):
        found.append(Scope(SEED, SEED))
    local = scope_at(root, LOCAL, config)
    if local is not None and (keep is None or keep(local)):
        found.append(local)

    def visit(base: str, prefix: str, inside: dict[str, os.DirEntry[str]] | None) -> None:
        """Walk the collections below ``base`` (``inside``: its entries when listed, so the
        collections it lacks are not tried one by one)."""
        for folder, kind in config.collections:
            if inside is not None and folder not in inside:
                continue
            collection = os.path.join(base, folder)
            seen(collection)
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
                seen(entry.path)
                listing = _listing(entry.path)  # one call instead of a probe per collection
                if isinstance(listing, PermissionError):  # a scope or not: cannot be told
                    problems.append((rel, f"cannot read folder ({listing.strerror})"))
                    continue
                if isinstance(listing, OSError):  # (gone since the collection was listed)
                    continue
                flag = listing.get(SCOPE_FLAG)
                if flag is not None and flag.is_file():
                    scope = Scope(rel, kind)
                    if keep is None or keep(scope):
                        found.append(scope)
                        visit(entry.path, rel + "/", listing)

    visit(top, "", None)
    return ScopeScan(order_chain(found, config), problems, folders, started)
