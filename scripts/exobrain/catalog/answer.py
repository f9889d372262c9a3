"""The catalog as ``skills-status --all`` prints it, in one call: the memo, the patch or the
full render, and what is kept for the next run.

Which of the three answers depends on the checkout. A full (or pattern-mode sparse) checkout
keeps the whole printed text under a key of everything it read (:mod:`exobrain.catalog.memo`).
A cone-mode sparse checkout keeps the printed rows instead and patches them for what changed
since their commit (:mod:`exobrain.catalog.patch`), starting a fresh clone from rows published
on a branch when it names one (:mod:`exobrain.catalog.publish`). Anything else, or any doubt,
and the catalog is rendered in full. Only an answer without findings is ever kept.
"""

from __future__ import annotations

from exobrain.catalog.kept import Rows, RowStore, rows_key
from exobrain.catalog.memo import CatalogMemo, catalog_key
from exobrain.catalog.patch import patched, units_on_disk
from exobrain.catalog.publish import adopt
from exobrain.catalog.rows import catalog_rows
from exobrain.catalog.text import Printed, render, variant_of
from exobrain.util.progress import Progress
from exobrain.workspace import Workspace


def printed_catalog(
    ws: Workspace, kind: str, tier: str | None = None, progress: Progress | None = None
) -> Printed:
    """The catalog as ``kind`` text (``table``, ``plain`` or ``json``; rows of ``tier`` only,
    when given) in UTF-8 pieces, without the final newline: from the memo, patched, or
    rendered in full (``progress`` shows the first read of a big repository from git)."""
    variant = variant_of(kind, tier)
    checkout = ws.sparse.checkout()
    if checkout.sparse and checkout.cone is not None:
        return _patched_or_full(ws, kind, tier, progress)
    key = catalog_key(ws)
    memo = CatalogMemo(ws.root, key) if key else None
    kept = memo.get(variant) if memo else None
    if kept is not None:
        return [kept]
    text = _full(ws, kind, tier, progress, None)
    if memo is not None and not ws.findings:
        memo.put(variant, b"".join(text))
    return text


def _patched_or_full(
    ws: Workspace, kind: str, tier: str | None, progress: Progress | None
) -> Printed:
    """A cone-mode sparse checkout's catalog: the kept (or published) rows patched, else
    the full render, whose rows are kept for the next run."""
    variant = variant_of(kind, tier)
    store = RowStore(ws.root, variant, rows_key(ws, variant))
    stored = store.load()
    if stored is None and adopt(ws, store, variant):  # rows published for a fresh clone
        stored = store.load()
    done = patched(ws, stored, kind, tier, store) if stored is not None else None
    return done if done is not None else _full(ws, kind, tier, progress, store)


def _full(
    ws: Workspace, kind: str, tier: str | None, progress: Progress | None, store: RowStore | None
) -> Printed:
    """Every row read and rendered; kept as rows in ``store`` when the answer is clean and
    was read at a commit this clone can diff from next time."""
    ws.sparse.progress = progress
    rows = catalog_rows(ws, tier)
    ws.sparse.progress = None
    text = render(kind, rows)
    tree = ws.sparse.committed() if ws.sparse.reads_git else None
    trusted = tree is not None and tree.head and not tree.tracks_cache
    if store is not None and tree is not None and trusted and not ws.findings:
        kept = Rows.rendered(text, rows)  # only from a clean answer
        if kept is not None:
            store.save(kept, tree.head or "", units_on_disk(ws))
    return [text.text().encode("utf-8", "surrogateescape")]
