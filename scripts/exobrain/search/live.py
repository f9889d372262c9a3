"""Search kept open between queries, for a process that answers many (the MCP server).

A command opens the workspace, resolves the chain, refreshes the index rows of every visible
skill and exits; a server answering an agent's calls for a whole session must not pay that on
every call (about 0.4 s at 8,000 skills), nor miss an edit made between two calls. A
:class:`Live` keeps the workspace, the connection's views and the open index, and before each
use checks only what can change them, each the cheap way:

* the workspace: the stat (mtime, size, inode: atomic writes replace the inode) of the
  connection and scope configuration and of every registry it has loaded, taken before the
  read (a registry loaded during a call is read again to check its text, so an edit racing
  the call is never recorded as seen), the search weights file, and the chain built again
  from the connection (a connected scope created or removed); a workspace that walked the
  whole repository (``--all-scopes``) also by the mtimes of the folders the walk read
  (:meth:`exobrain.scan.ScopeScan.still_valid`: a new or removed scope moves one), unless it
  read scopes a sparse checkout leaves out from git (then it is opened again);
* each visible artifact's rows: its stat signature (the index's own fast path,
  :func:`exobrain.search.docs.stat_signature`) against the one seen at its last check, so only
  a moved file reaches the index;
* the views: resolved again when the index rows changed (supersession links come from them)
  or the installed external skills did;
* the index file: replaced by another process (a rebuild) → opened again.

On Linux the many ``stat`` calls of the registries, the scope walk and the artifacts (about
11,500 with 8,000 skills visible: most of an ``--all-scopes`` query) are asked only when a
folder watch (:mod:`exobrain.util.watch`) reports a change in one of their folders since the
previous call. A folder is watched before its files are asked, so whatever a full check found
stays true while the watch is quiet; the config files, the chain and the index file are
still asked every time (a handful of calls).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from exobrain.registry.entries import registry_path
from exobrain.scopes import CONNECTION_FILE, build_chain
from exobrain.search.artifact import Artifact
from exobrain.search.corpus import View, open_view
from exobrain.search.engine import (
    Filters,
    QualityFn,
    Result,
    Searcher,
    answer,
    candidates,
    index_failure,
    signal_quality,
)
from exobrain.search.indexfiles import discard, index_path, is_corrupt
from exobrain.search.query import fts_query
from exobrain.search.ranking import WEIGHTS_FILE
from exobrain.util.fileio import read_text
from exobrain.util.watch import FolderWatch, open_watch
from exobrain.workspace import Workspace, exobrain_root, open_workspace

Stat = tuple[int, int, int] | None
SCOPES_FILE = "scopes.json"


def file_stat(path: Path | str) -> Stat:
    """(mtime, size, inode) of ``path``, None when it is missing or unreadable."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _own_stat(path: str) -> tuple[Stat, bool]:
    """:func:`file_stat` of ``path``, and whether it is the file's own (not a link's target,
    which a watch of the link's folder would not see change)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None, True
    if stat.S_ISLNK(info.st_mode):
        return file_stat(path), False
    return (info.st_mtime_ns, info.st_size, info.st_ino), True


class Live:
    """One exobrain's workspace, views and search index, kept fresh between calls. Not
    thread-safe: one thread uses it (the MCP server's worker)."""

    def __init__(
        self,
        repo: Path | None = None,
        *,
        semantic: bool = True,
        watch: bool = True,
        agent: str | None = None,
    ) -> None:
        self.repo = repo
        self.agent = agent  # whose answers these are (None: agent-neutral)
        self.semantic = semantic  # False: lexical only, never looking for an encoder
        self._watching = watch  # False: ask every file on every call
        self._watch: FolderWatch | None = None
        self._vouched: dict[str, str] = {}  # ref → its file, stat'ed under a watch quiet since
        self._ws_vouched = False  # the registries were checked under it
        self._scan_vouched = False  # ... and the scope walk too
        self._ws: Workspace | None = None
        self._stats: dict[str, Stat] = {}  # config file → stat when read
        self._registries: dict[str, Stat] = {}  # registry file → stat when read
        self._checked: set[str] = set()  # the scopes whose registry has a stat in _registries
        self._searcher: Searcher | None = None
        self._index_inode: int | None = None
        self._seen: dict[str, Stat] = {}  # ref → its file's stat at its last check
        self._views: dict[bool, tuple[str | None, View]] = {}  # everywhere → (docs_gen, view)
        self._installed: dict[tuple[str, str], str] | None = None

    def workspace(self) -> Workspace:
        """The workspace, opened again only when a file it was read from moved."""
        self._drain()
        if self._ws is None or not self._still_valid(self._ws):
            root = exobrain_root(self.repo)
            stats = {
                str(path): file_stat(path)
                for path in (root / CONNECTION_FILE, root / SCOPES_FILE, root / WEIGHTS_FILE)
            }
            self._ws, self._stats, self._checked = open_workspace(root), stats, set()
            self._registries, self._ws_vouched, self._scan_vouched = {}, False, False
            self._ws.watch_scan = True
            self._searcher, self._views, self._installed = None, {}, None
        return self._ws

    def _drain(self) -> None:
        """Take the watch's news: when anything in a watched folder changed (or the watch
        broke), forget what it vouched for, so the next check asks every file again. A broken
        watch is replaced unless the kernel refused it a folder."""
        watch = self._watch
        if watch is not None and watch.quiet():
            return
        self._vouched.clear()
        self._ws_vouched = self._scan_vouched = False
        if self._watching and (watch is None or (watch.broken and not watch.refused)):
            self._watch = open_watch()
            self._watching = self._watch is not None

    def _watched(self, folder: str) -> bool:
        """Whether ``folder`` is (now) watched; to be asked before reading in it."""
        return self._watch is not None and self._watch.add(folder)

    def _still_valid(self, ws: Workspace) -> bool:
        vouched = self._ws_vouched
        watched = True
        if ws.scanned and ws.sparse.reads_git:
            return False  # scopes read from git: no walk to check
        if ws.scanned and not (vouched and self._scan_vouched):
            scan = ws.disk_scan()
            watched = all(self._watched(folder) for folder in scan.folders)
            if not scan.still_valid():
                return False  # a scope may have come or gone
        if not vouched:
            watched = all(self._watched(os.path.dirname(p)) for p in self._registries) and watched
            if any(file_stat(path) != stat for path, stat in self._registries.items()):
                return False
        for scope, registry in ws.registries.items():
            if scope in self._checked:
                continue
            path = str(registry_path(ws.root, scope))  # loaded since the last check
            watched = self._watched(os.path.dirname(path)) and watched
            stat = file_stat(path)
            if _text(path) != registry.text:
                return False
            self._registries[path] = stat
            self._checked.add(scope)
        if any(file_stat(path) != stat for path, stat in self._stats.items()):
            return False
        chain = build_chain(ws.root, ws.connection.connected_scopes, ws.config)
        if chain.paths != ws.chain.paths or chain.warnings != ws.chain.warnings:
            return False
        # what was checked here stays true while the watch is quiet (a walk made later is not)
        self._ws_vouched = watched and self._watch is not None
        self._scan_vouched = self._ws_vouched and ws.scanned
        return True

    def quality(self) -> QualityFn:
        """Quality scores from this exobrain's signal ledgers, read when a ranking asks (only
        the root is used, so the kept workspace serves without being checked again)."""
        return signal_quality(self._ws or self.workspace())

    def searcher(self) -> Searcher:
        """The open searcher of the current workspace, opened again when the index file was
        replaced (another command rebuilt it: its rows and vectors are in the new file). The
        file is known by its inode, which no other file can take while it is open here;
        its mtime moves with every write, ours included. A temporary index (a read-only
        checkout) lives as long as the searcher."""
        ws = self.workspace()
        stat = file_stat(index_path(ws.root))
        searcher = self._searcher
        if searcher is None or (
            searcher.index.path is not None and (stat and stat[2]) != self._index_inode
        ):
            searcher = self._searcher = Searcher(ws, semantic=self.semantic, agent=self.agent)
            self._seen, self._views = {}, {}
            self._vouched = {}
            opened = file_stat(index_path(ws.root))  # opening creates it
            self._index_inode = opened[2] if opened else None
        searcher.next_query()
        return searcher

    def search(
        self,
        query: str,
        filters: Filters,
        *,
        k: int,
        quality: QualityFn | None,
        keep: Callable[[Artifact], bool] | None = None,
    ) -> Result:
        """:func:`exobrain.search.engine.search`, on the kept workspace and index, among the
        candidates ``keep`` keeps (all when None: a server narrows what it may show)."""
        fts_query(query)  # refuse an empty query before any work
        try:
            try:
                return self._search(query, filters, k, quality, keep)
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc):
                    raise
                ws = self.workspace()
                self._searcher = None
                discard(index_path(ws.root))  # corrupted while in use: start again, once
                result = self._search(query, filters, k, quality, keep)
                result.notes.insert(0, f"search index: unreadable index ({exc}) rebuilt")
                return result
        except sqlite3.DatabaseError as exc:
            self._searcher = None
            raise index_failure(self.workspace(), exc) from exc

    def _search(
        self,
        query: str,
        filters: Filters,
        k: int,
        quality: QualityFn | None,
        keep: Callable[[Artifact], bool] | None,
    ) -> Result:
        searcher = self.searcher()
        searcher.encoders.expect(query)
        checked: set[str] = set()
        view = self.view(searcher, filters.everywhere, checked)
        pool = [a for a in candidates(view, filters) if keep is None or keep(a)]
        self._sync(searcher, pool, checked)
        result = answer(searcher, view, pool, query, filters, k, quality)
        if view.installs_read:
            self._installed = view.installed()
        return result

    def view(self, searcher: Searcher, everywhere: bool, checked: set[str]) -> View:
        """The connection's view (``everywhere``: every scope) with its declared skills' rows
        fresh; resolved again when rows changed or the installed external skills did."""
        ws = searcher.ws
        if self._installed is not None and View(ws, [], everywhere).installed() != self._installed:
            self._views, self._installed = {}, None
        kept = self._views.get(everywhere)
        view = kept[1] if kept else open_view(ws, everywhere=everywhere, agent=self.agent)
        self._sync(searcher, view.declared(), checked)
        generation = searcher.index.meta("docs_gen")
        if kept is None or kept[0] != generation:
            if kept is not None:  # rows changed: resolve again, with their supersession links
                view = open_view(ws, everywhere=everywhere, agent=self.agent)
            known = searcher.index.supersedes()
            view.supersedes = lambda entry: known.get(f"skill:{entry.name}@{entry.scope}")
            self._views[everywhere] = (generation, view)
        return view

    def _sync(self, searcher: Searcher, artifacts: list[Artifact], checked: set[str]) -> None:
        """Refresh the rows of those of ``artifacts`` whose file moved since they were last
        checked (each file is stat'ed once per call, whatever asks for it).

        Only the file: what a search shows comes from it alone (an in-place edit moves its
        mtime, an atomic one its inode too). A file added beside a SKILL.md changes the
        row's content hash, which the substrate verbs' own full refresh brings up to date."""
        seen, missing, vouched = self._seen, (-1, -1, -1), self._vouched
        moved: list[Artifact] = []
        stats: dict[str, Stat] = {}
        for artifact in artifacts:  # one pass: this runs for every skill of --all-scopes
            ref, file = artifact.ref, artifact.file
            if file and ref not in checked and ref not in stats and vouched.get(ref) != file:
                folder = os.path.dirname(file)
                watched = self._watched(folder) and self._watched(os.path.dirname(folder))
                now, own = _own_stat(file)
                stats[ref] = now
                if watched and own:
                    vouched[ref] = file
                if seen.get(ref, missing) != now:
                    moved.append(artifact)
        if moved:
            searcher.forget(a.ref for a in moved)
            searcher.refresh(moved)
        seen.update(stats)
        checked.update(stats)


def _text(path: str) -> str:
    """A registry's text as :func:`exobrain.registry.entries.load_registry` reads it ("" when it
    cannot be read: a registry that could not be read has no text either)."""
    try:
        return read_text(Path(path))
    except Exception:
        return ""
