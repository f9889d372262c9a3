"""The one shape of progress the library reports: ``progress(stage, done, total)``.

Long work (an index build, the embedding, a site, the first read of a big repository from
git) calls it; the command-line edge draws it (:mod:`exobrain.cli.progress`: a bar on a
terminal, nothing in a pipe). The library never imports the drawing side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

Progress = Callable[[str, int, int], None]
#: Items between two reports of :func:`counted` (a report per item would cost more than the
#: items of a fast stream).
STEP = 1000

T = TypeVar("T")


def counted(items: Iterable[T], progress: Progress | None, stage: str, total: int) -> Iterator[T]:
    """``items`` as they come, reporting ``(stage, done, total)`` every :data:`STEP` items
    and once at the end (not before the first: what makes the items may report its own
    stage first, such as a fetch)."""
    if progress is None:
        yield from items
        return
    done = 0
    for item in items:
        yield item
        done += 1
        if done % STEP == 0:
            progress(stage, done, total)
    progress(stage, done, total)
