"""The progress display of long search-cache work: reading thousands of skills, embedding.

On a terminal, a bar per stage on stderr that disappears when done; elsewhere nothing, or (for
``exobrain index``, whose whole job is this work) a line per tenth on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

LABELS = {
    "index": "reading skills",
    "minilm": "embedding (MiniLM)",
    "wordllama": "embedding (WordLlama)",
}
Report = Callable[[str, int, int], None]


@contextmanager
def progress_display(*, plain_lines: bool = False) -> Iterator[Report | None]:
    """Yield a ``progress(stage, done, total)`` callback for the search family, or None."""
    if not sys.stderr.isatty():
        yield _lines() if plain_lines else None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    tasks = {}

    def report(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(LABELS.get(stage, stage), total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield report


def _lines() -> Report:
    shown: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if shown.get(stage) != tenth:
            shown[stage] = tenth
            click.echo(f"{LABELS.get(stage, stage)}: {done}/{total}", err=True)

    return report
