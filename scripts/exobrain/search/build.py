"""The whole search cache brought up to date: ``exobrain index`` and the background build.

A search refreshes only what it shows; this refreshes every skill folder and knowledge
document of the repository (dropping rows of what no longer exists), embeds every text an
installed encoder has no vector for, drops vectors nothing refers to any more, and builds the
matrices queries read, so the next search has nothing to do. Run as
``python -m exobrain.search.build ROOT`` it is the background build a search starts
(:mod:`exobrain.search.background`).
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from exobrain.errors import ExobrainError, OperationFailed
from exobrain.search import background
from exobrain.search.corpus import index_artifacts
from exobrain.search.engine import Searcher, guarded
from exobrain.search.index import Update
from exobrain.util.locking import exclusive
from exobrain.util.progress import Progress
from exobrain.workspace import Workspace, open_workspace


@guarded
def build_index(
    ws: Workspace,
    *,
    semantic: bool = True,
    progress: Progress | None = None,
    wait: float = 3600.0,
) -> Update:
    """Bring the cache up to date for the whole repository, holding the builder lock (waiting
    up to ``wait`` seconds for a build already running; OperationFailed past that, as for a
    SQLite error of the cache)."""
    with exclusive(background.lock_target(ws.root), timeout=wait, root=ws.root):
        searcher = Searcher(ws, semantic=semantic, progress=progress)
        update = searcher.refresh(index_artifacts(ws), prune=True)
        # the quickest encoder first: it is ready for searches while the slow one works
        encoders = searcher.encoders
        for model in sorted(encoders.models.values(), key=lambda m: m.seconds_per_text):
            try:  # the matrices are made now, so the next query only maps them
                encoders.vectors_for(model, None, None, searcher.update)
            except ExobrainError:
                raise
            except Exception as exc:  # a broken model file or runtime: the others still run
                searcher.notes.append(
                    f"{model.role} could not be used ({type(exc).__name__}: {exc})"
                )
        if update.removed:  # an edit leaves one old vector behind at most; removals prune
            encoders.vectors.prune()
        update.rebuilt = "; ".join(searcher.notes) or None
        return update


def main(argv: list[str]) -> int:
    """The background build: quietly nothing when another build holds the lock (waiting a
    moment first: a search checking whether a build runs holds it for microseconds)."""
    try:
        build_index(open_workspace(Path(argv[0])), wait=2.0)
    except OperationFailed as exc:  # most often: another build runs and does the work
        print(exc, file=sys.stderr)
        return 0
    except Exception:
        traceback.print_exc()  # into .exobrain-cache/index.log
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
