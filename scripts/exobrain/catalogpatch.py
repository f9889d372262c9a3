"""The printed catalog of a sparse checkout, patched for what changed instead of made anew.

``skills-status --all`` in an exobrain of 100,000 people prints 600,000 rows. After a pull
that changed a few people's folders, making them all again from the per-registry cache
(:mod:`exobrain.treecache`) takes seconds; the memo (:mod:`exobrain.catalogmemo`) does not
help, since its key changed. So each printed catalog is also kept as *rows*: the text of each
row (:mod:`exobrain.catalogtext`) and the scope that declares it, with the commit it was read
at. The next run asks git which files changed since that commit (``git diff-tree``: trees
only, no blob read), and re-makes only the rows of

* the units those files belong to (a unit: a folder at the top of a collection, or the
  global ``skills/``; see :mod:`exobrain.committedunits`),
* the units on the disk now or at the last run, and those the cone touches (read from the
  disk, so they can change without a commit),
* the global scope (its registry is at the root),

through the same code as a full render, restricted to those units
(:attr:`exobrain.sparseview.SparseView.only`). The other rows are kept as they were printed,
and the new ones are merged in at their place in the order (name, then the declaring scope).

The patched text is the full render's, or no patch is made and the catalog is rendered in
full: when more than 500 units changed, the commit is gone, a table column's width changed,
anything reported a finding (kept rows were only ever stored from an answer without one), the
scope configuration or the toolkit changed, or HEAD tracks ``.exobrain-cache``. The rows are
kept in ``.exobrain-cache/catalog-rows/<variant>.*`` and trusted only while the data files are
the very files this toolkit wrote (their inode and times are in the meta file, so files
someone committed or copied never match).
"""

from __future__ import annotations

import json
import os
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from exobrain import __version__
from exobrain.catalog import CatalogRow, catalog_rows
from exobrain.catalogtext import (
    SEPARATORS,
    TABLE,
    CatalogText,
    cells,
    chunks_of,
    frame,
    name_in,
    render,
    table_cells,
    widths_of,
)
from exobrain.committed import PATHSPEC_LIMIT
from exobrain.committedunits import unit_of
from exobrain.errors import ExobrainError, InputFileError
from exobrain.model import GLOBAL
from exobrain.paths import REPO_CACHE, cache_folder
from exobrain.scopes import SEED, Chain
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes
from exobrain.util.progress import Progress
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

FOLDER = "catalog-rows"
STORE_VERSION = 1
LIMIT = 1 << 31
_DATA = ("rows.txt", "offsets.bin", "index.bin", "scopes.txt")
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")
_GLOBAL_UNIT = "skills"  # the global skills/ folder: the global scope's skills
#: Kept rows are rewritten (about 100 MB at 100,000 people) once this many units changed
#: since they were made; until then each run patches them again, from their commit.
REWRITE_AFTER = 50
#: Printed text in UTF-8, in pieces written one after the other (no copy of a big catalog).
Printed = list[bytes | memoryview]
_NAME_SPAN = 256  # bytes from a row's start that hold its name (64 characters at most)


class Stored:
    """A printed catalog as kept: each row's text followed by its separator (``body``),
    where each row starts (``offsets``, one more: the end), each row's scope as an index into
    the sorted ``scopes``, and what it was made from (``meta``)."""

    def __init__(
        self,
        meta: dict[str, Any],
        body: bytes,
        offsets: array[int],
        index: array[int],
        scopes: list[str],
    ) -> None:
        self.meta = meta
        self.body = body
        self.offsets = offsets
        self.index = index
        self.scopes = scopes
        self.head: str = meta["head"]
        self.fresh: list[str] = meta["fresh"]
        self.widths = tuple(meta["widths"])
        self.histograms = [Counter(dict(h)) for h in meta["histograms"]]

    def well_formed(self) -> bool:
        """Whether the parts fit together (checks that cost no pass over the rows)."""
        offsets, index = self.offsets, self.index
        return (
            _COMMIT.match(self.head) is not None
            and all(type(u) is str for u in self.fresh)
            and len(offsets) == len(index) + 1 > 1
            and offsets[0] == 0
            and offsets[-1] == len(self.body)
            and max(index) < len(self.scopes)
            and len(self.widths) == len(self.histograms)
        )


def identity(ws: Workspace, variant: str) -> dict[str, Any]:
    """What a kept catalog must have been made with to be patched now: the same format,
    toolkit, scope configuration and cone."""
    return {
        "version": STORE_VERSION,
        "toolkit": __version__,
        "variant": variant,
        "collections": [list(c) for c in ws.config.collections],
        "cone": list(ws.sparse.checkout().cone or ()),
    }


class RowStore:
    """The kept rows of one output variant (``table``, ``json-optional``…) of a repository."""

    def __init__(self, root: Path, variant: str, made_with: dict[str, Any]) -> None:
        self.root = root
        self.variant = variant
        self.made_with = made_with

    def _path(self, part: str) -> Path:
        return self.root / REPO_CACHE / FOLDER / f"{self.variant}.{part}"

    def _read(self, part: str) -> bytes:
        path = resolve_inside(self.root, self._path(part), links=False)
        return read_bytes(path, limit=LIMIT, what="the kept catalog rows")

    def _signatures(self) -> dict[str, list[int] | None]:
        return {part: _signature(self._path(part)) for part in _DATA}

    def load(self) -> Stored | None:
        """The kept rows when they are whole and were made the way this run would make them."""
        try:
            meta = json.loads(self._read("meta.json"))
            if not isinstance(meta, dict) or meta.get("identity") != self.made_with:
                return None
            if meta.get("files") != self._signatures():
                return None  # not the files this toolkit wrote here
            offsets, index = array("Q"), array("I")
            offsets.frombytes(self._read("offsets.bin"))
            index.frombytes(self._read("index.bin"))
            scopes = self._read("scopes.txt").decode("utf-8").split("\n")
            stored = Stored(meta, self._read("rows.txt"), offsets, index, scopes)
            return stored if stored.well_formed() else None
        except (InputFileError, ExobrainError, OSError, ValueError, KeyError, TypeError):
            return None

    def save_rendered(
        self, text: CatalogText, rows: Sequence[CatalogRow], head: str, fresh: set[str]
    ) -> None:
        """Keep a full render's rows (``text``, made from ``rows``)."""
        if not text.chunks:
            return
        scopes = sorted({r.registry for r in rows})
        position = {path: i for i, path in enumerate(scopes)}
        sep = SEPARATORS[text.kind]
        offsets = array("Q", [0])
        offsets.extend(accumulate(_size(c) + len(sep) for c in text.chunks))
        body = "".join([sep.join(text.chunks), sep]).encode("utf-8", "surrogateescape")
        index = array("I", [position[r.registry] for r in rows])
        self.save(text, body, offsets, index, scopes, head, fresh)

    def save(
        self,
        text: CatalogText,
        body: bytes | None,
        offsets: array[int],
        index: array[int],
        scopes: list[str],
        head: str,
        fresh: set[str],
    ) -> None:
        """Keep the rows (``body`` None: the data files are unchanged, only the meta file is
        written). A cache: a failure to write is ignored, and rows that could not be read
        back are not kept."""
        if body is not None and not _listable(text.kind, scopes):
            return
        try:
            cache_folder(self.root, FOLDER)
            if body is not None:
                parts = {
                    "rows.txt": body,
                    "offsets.bin": offsets.tobytes(),
                    "index.bin": index.tobytes(),
                    "scopes.txt": "\n".join(scopes).encode("utf-8", "surrogateescape"),
                }
                for part, data in parts.items():
                    atomic_write_text(self._path(part), data, root=self.root, durable=False)
            meta = {
                "identity": self.made_with,
                "head": head,
                "fresh": sorted(fresh),
                "widths": list(text.widths),
                "histograms": [sorted(h.items()) for h in text.histograms or []],
                "files": self._signatures(),
            }
            text_meta = json.dumps(meta, separators=(",", ":"))
            atomic_write_text(self._path("meta.json"), text_meta, root=self.root, durable=False)
        except (ExobrainError, OSError):
            pass


def _listable(kind: str, scopes: list[str]) -> bool:
    """Whether the scope paths can be kept one per line and (a table's) read back at their
    column, which a path ending in a space would not be."""
    if "\n".join(scopes).count("\n") != len(scopes) - 1:
        return False
    return kind != TABLE or not any(path[-1:].isspace() for path in scopes)


def _size(chunk: str) -> int:
    """The chunk's length in UTF-8 bytes."""
    return len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogateescape"))


def _signature(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def units_on_disk(ws: Workspace) -> set[str]:
    """The units with a scope on the disk (their rows are read from there, so they may
    change without a commit) and the global ``skills/``."""
    names = {name for name, _ in ws.config.collections}
    found = {unit_of(s.path, names) for s in ws.disk_scan().scopes}
    return {u for u in found if u is not None} | {_GLOBAL_UNIT}


def catalog_text(
    ws: Workspace, kind: str, tier: str | None, progress: Progress | None = None
) -> Printed:
    """The catalog as ``kind`` text in UTF-8, in pieces (rows of ``tier`` only, when given): patched
    from the rows kept at the last run when it can be (see the module), else rendered in
    full (``progress`` shows the first read of a big repository from git). Rows are kept for
    the next run when the answer has no finding."""
    variant = kind + (f"-{tier}" if tier else "")
    checkout = ws.sparse.checkout()
    store = None
    if checkout.sparse and checkout.cone is not None:
        store = RowStore(ws.root, variant, identity(ws, variant))
        stored = store.load()
        done = _patched(ws, stored, kind, tier, store) if stored is not None else None
        if done is not None:
            return done
    ws.sparse.progress = progress
    rows = [r for r in catalog_rows(ws) if tier is None or r.tier == tier]
    ws.sparse.progress = None
    text = render(kind, rows)
    tree = ws.sparse.committed() if ws.sparse.reads_git else None
    trusted = tree is not None and tree.head and not tree.tracks_cache
    if store is not None and tree is not None and trusted and not ws.findings:
        store.save_rendered(text, rows, tree.head or "", units_on_disk(ws))  # a clean answer
    return [text.text().encode("utf-8", "surrogateescape")]


def _patched(
    ws: Workspace, stored: Stored, kind: str, tier: str | None, store: RowStore
) -> Printed | None:
    """The kept catalog with the rows of every unit that may have changed made anew (and
    kept for the next run); None when it cannot be patched."""
    repo = Repository(ws.root, own_env=True)
    try:
        head = repo.commit_of("HEAD")
        changed = [] if head == stored.head else repo.changed_paths(stored.head, head or "")
    finally:
        repo.close()
    if head is None or changed is None:
        return None
    names = {name for name, _ in ws.config.collections}
    touched = {unit_of(path, names) for path in changed}
    now = units_on_disk(ws)
    fresh = {u for u in touched if u is not None and u != SEED} | set(stored.fresh) | now
    if len(fresh) > PATHSPEC_LIMIT:
        return None
    view = Workspace(ws.root, ws.config, ws.connection, Chain([]))
    view.sparse.only = frozenset(fresh)
    rows = [r for r in catalog_rows(view) if tier is None or r.tier == tier]
    tree = view.sparse.committed() if view.sparse.reads_git else None
    if view.findings or tree is None or tree.tracks_cache or tree.head != head:
        return None
    if any(_unit_of_scope(r.registry, names) not in fresh for r in rows):
        return None  # (cannot happen: every scope read is in a fresh unit)
    merged = _merge(stored, kind, rows, _dropped(stored.scopes, fresh))
    if merged is None:
        return None
    text, body, offsets, index, scopes = merged
    if body is stored.body:  # the same rows: the next run diffs from here
        if head != stored.head or sorted(now) != stored.fresh:
            store.save(text, None, offsets, index, scopes, head, now)
    elif len(fresh - now) >= REWRITE_AFTER:
        store.save(text, body, offsets, index, scopes, head, now)
    before, after = frame(kind, len(index), text.widths)
    sep = len(SEPARATORS[kind])
    return [before.encode(), memoryview(body)[:-sep], after.encode()]


def _unit_of_scope(scope: str, names: set[str]) -> str | None:
    return _GLOBAL_UNIT if scope == GLOBAL else unit_of(scope, names)


def _dropped(scopes: list[str], fresh: set[str]) -> bytearray:
    """A mark for each kept scope of a fresh unit (its rows are made anew): the unit's own
    path and every path below it, found by bisection in the sorted list."""
    marks = bytearray(len(scopes))
    for unit in fresh:
        top = GLOBAL if unit == _GLOBAL_UNIT else unit
        at = bisect_left(scopes, top)
        if at < len(scopes) and scopes[at] == top:
            marks[at] = 1
        if unit != _GLOBAL_UNIT:  # "x/" <= path < "x0" is exactly the paths below x/
            for i in range(bisect_left(scopes, top + "/"), bisect_left(scopes, top + "0")):
                marks[i] = 1
    return marks


Merged = tuple[CatalogText, bytes, "array[int]", "array[int]", list[str]]


def _merge(stored: Stored, kind: str, rows: list[CatalogRow], dropped: bytearray) -> Merged | None:
    """The kept rows without those of the dropped scopes, with ``rows`` (sorted by name and
    scope) merged in at their places: the text's widths, body, offsets, index and scopes
    (the body is ``stored.body`` itself when nothing changed); None when a table column
    would change width or no row is left."""
    body, offsets, index, scopes = stored.body, stored.offsets, stored.index, stored.scopes
    sep = SEPARATORS[kind]
    gone = [j for j, s in enumerate(index) if dropped[s]]
    widths, histograms = stored.widths, stored.histograms
    if kind == TABLE:
        old_cells = [table_cells(_chunk(stored, j, len(sep)), widths) for j in gone]
        new_cells = [cells(r) for r in rows]
        for column, histogram in enumerate(histograms):
            histogram.subtract(len(c[column]) for c in old_cells)
            histogram.update(len(c[column]) for c in new_cells)
        if widths_of(histograms) != widths:
            return None
        histograms = [Counter({w: n for w, n in h.items() if n > 0}) for h in histograms]
    count = len(index) - len(gone) + len(rows)
    if not count:
        return None
    text = CatalogText(kind, [], widths, histograms)
    added = [(c + sep).encode("utf-8", "surrogateescape") for c in chunks_of(kind, rows, widths)]
    places = _places(stored, kind, rows)
    new_scopes, remap = _rescoped(scopes, dropped, {r.registry for r in rows})
    events = sorted([(r, 0, i) for i, r in enumerate(places)] + [(j, 1, -1) for j in gone])
    pieces: list[bytes] = []
    new_offsets, new_index = array("Q"), array("I")
    at = written = 0  # the next kept row; the bytes written so far

    def copy(end: int) -> None:
        nonlocal written
        if end <= at:
            return
        pieces.append(body[offsets[at] : offsets[end]])
        shift = written - offsets[at]
        new_offsets.extend(offsets[at:end] if not shift else [o + shift for o in offsets[at:end]])
        new_index.extend(index[at:end] if remap is None else [remap[s] for s in index[at:end]])
        written += offsets[end] - offsets[at]

    for row_at, dropping, i in events:
        copy(row_at)
        if dropping:
            at = row_at + 1
        else:
            at = row_at
            pieces.append(added[i])
            new_offsets.append(written)
            new_index.append(bisect_left(new_scopes, rows[i].registry))
            written += len(added[i])
    copy(len(index))
    new_offsets.append(written)
    new_body = b"".join(pieces)
    if new_index == index and new_body == body:
        return text, body, offsets, index, scopes
    return text, new_body, new_offsets, new_index, new_scopes


def _rescoped(
    scopes: list[str], dropped: bytearray, fresh: set[str]
) -> tuple[list[str], array[int] | None]:
    """The sorted scopes of the patched rows (the kept scopes, with the ``fresh`` ones that
    have rows), and where each kept scope's index moves (None: nowhere, the list is the
    same, as when the changed scopes still all have rows)."""
    if fresh == {scopes[i] for i in range(len(scopes)) if dropped[i]}:
        return scopes, None
    new_scopes = sorted({p for i, p in enumerate(scopes) if not dropped[i]} | fresh)
    remap = array("I", bytes(4 * len(scopes)))  # a dropped scope's entry is never read
    at = 0
    for i, path in enumerate(scopes):  # both lists sorted: one walk
        if not dropped[i]:
            while new_scopes[at] != path:
                at += 1
            remap[i] = at
    return new_scopes, remap


def _chunk(stored: Stored, j: int, sep: int) -> str:
    """Row ``j``'s text."""
    return stored.body[stored.offsets[j] : stored.offsets[j + 1] - sep].decode("utf-8")


def _places(stored: Stored, kind: str, rows: list[CatalogRow]) -> list[int]:
    """For each new row (in order), the kept row it goes before (the row count: at the
    end), found by bisection over the kept rows in their printed order. The stored rows are
    in (name, scope) order, the dropped ones too, so the search runs over all of them: a new
    row placed before a dropped one lands before the next kept one."""
    body, offsets, index, scopes = stored.body, stored.offsets, stored.index, stored.scopes

    def key(j: int) -> tuple[str, str]:
        start = offsets[j]
        head = body[start : min(start + _NAME_SPAN, offsets[j + 1])]
        return name_in(kind, head.decode("utf-8", "ignore")), scopes[index[j]]

    places, lo = [], 0
    for row in rows:
        lo = bisect_right(range(len(index)), (row.name, row.registry), lo=lo, key=key)
        places.append(lo)
    return places
