"""The printed catalog of a sparse checkout, patched for what changed instead of made anew.

``skills-status --all`` in an exobrain of 100,000 people prints 600,000 rows. After a pull
that changed a few people's folders, making them all again from the per-registry cache
(:mod:`exobrain.sparse.treecache`) takes seconds; the memo (:mod:`exobrain.catalog.memo`) does not
help, since its key changed. So each printed catalog is also kept as *rows*: the text of each
row (:mod:`exobrain.catalog.text`) and the scope that declares it, with the commit it was read
at. The next run asks git which files changed since that commit (``git diff-tree``: trees
only, no blob read), and re-makes only the rows of

* the units those files belong to (a unit: a folder at the top of a collection, or the
  global ``skills/``; see :mod:`exobrain.sparse.units`),
* the units with a scope on the disk now or at the last run (read from the disk, so they
  can change without a commit),
* the global scope (its registry is at the root),

through the same code as a full render, restricted to those units
(:attr:`exobrain.sparse.view.SparseView.only`). The other rows are kept as they were printed,
and the new ones are merged in at their place in the order (name, then the declaring scope).

The patched text is the full render's, or no patch is made and the catalog is rendered in
full: when more than 500 units changed, the commit is gone, a table column's width changed,
anything reported a finding (kept rows were only ever stored from an answer without one), the
scope configuration, the cone or the toolkit changed, or HEAD tracks ``.exobrain-cache``.
How the rows are kept, and why a copy of them is never trusted: :mod:`exobrain.catalog.kept`.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Set as AbstractSet

from exobrain.catalog.kept import Rows, RowStore, Stored
from exobrain.catalog.rows import CatalogRow, catalog_rows
from exobrain.catalog.text import (
    SEPARATORS,
    TABLE,
    CatalogText,
    Printed,
    cells,
    chunks_of,
    frame,
    name_in,
    table_cells,
    widths_of,
)
from exobrain.model import GLOBAL
from exobrain.scopes import SEED, Chain
from exobrain.sparse.committed import PATHSPEC_LIMIT
from exobrain.sparse.units import unit_of
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

_GLOBAL_UNIT = "skills"  # the global skills/ folder: the global scope's skills
#: Kept rows are rewritten (about 100 MB at 100,000 people) once this many units changed
#: since they were made; until then each run patches them again, from their commit.
REWRITE_AFTER = 50
_NAME_SPAN = 256  # bytes from a row's start that hold its name (64 characters at most)


def units_on_disk(ws: Workspace) -> set[str]:
    """The units with a scope on the disk (their rows are read from there, so they may
    change without a commit) and the global ``skills/``."""
    found = {unit_of(s.path, ws.config.folders) for s in ws.disk_scan().scopes}
    return {u for u in found if u is not None} | {_GLOBAL_UNIT}


def patched(
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
    names = ws.config.folders
    touched = {unit_of(path, names) for path in changed}
    now = units_on_disk(ws)
    fresh = {u for u in touched if u is not None and u != SEED} | set(stored.fresh) | now
    if len(fresh) > PATHSPEC_LIMIT:
        return None
    view = Workspace(ws.root, ws.config, ws.connection, Chain([]))
    view.sparse.only = frozenset(fresh)
    rows = catalog_rows(view, tier)
    tree = view.sparse.committed() if view.sparse.reads_git else None
    if view.findings or tree is None or tree.tracks_cache or tree.head != head:
        return None
    if any(_unit_of_scope(r.registry, names) not in fresh for r in rows):
        return None  # (cannot happen: every scope read is in a fresh unit)
    merged = _merge(stored, kind, rows, _dropped(stored.scopes, fresh))
    if merged is None:
        return None
    if merged.body is stored.body:  # the same rows: the next run diffs from here
        if head != stored.head or sorted(now) != stored.fresh:
            store.save(merged, head, now, data=False)
    elif len(fresh - now) >= REWRITE_AFTER:
        store.save(merged, head, now)
    before, after = frame(kind, len(merged.index), merged.text.widths)
    sep = len(SEPARATORS[kind])
    return [before.encode(), memoryview(merged.body)[:-sep], after.encode()]


def _unit_of_scope(scope: str, names: AbstractSet[str]) -> str | None:
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


def _merge(stored: Stored, kind: str, rows: list[CatalogRow], dropped: bytearray) -> Rows | None:
    """The kept rows without those of the dropped scopes, with ``rows`` (sorted by name and
    scope) merged in at their places (the body is ``stored.body`` itself when nothing
    changed); None when a table column would change width or no row is left."""
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
        return Rows(text, body, offsets, index, scopes)
    return Rows(text, new_body, new_offsets, new_index, new_scopes)


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
    """Row ``j``'s text (decoded the way it was encoded: a path that is not UTF-8 is kept)."""
    chunk = stored.body[stored.offsets[j] : stored.offsets[j + 1] - sep]
    return chunk.decode("utf-8", "surrogateescape")


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
