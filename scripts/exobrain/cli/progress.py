"""The progress display of long search-cache work: reading thousands of skills, embedding.

On a terminal, a bar per stage on stderr, drawn only for work worth watching (a stage of at
least :data:`WORTH_A_BAR` items) and gone when done; elsewhere nothing, or (for ``exobrain
index``, whose whole job is this work) a line per tenth on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import click

LABELS = {
    "index": "reading skills",
    "minilm": "embedding (MiniLM)",
    "wordllama": "embedding (WordLlama)",
}
WORTH_A_BAR = 50
Report = Callable[[str, int, int], None]


@contextmanager
def progress_display(*, plain_lines: bool = False) -> Iterator[Report | None]:
    """Yield a ``progress(stage, done, total)`` callback for the search family, or None."""
    if not sys.stderr.isatty():
        yield _lines() if plain_lines else None
        return
    with ExitStack() as stack:
        bar: Any = None
        tasks: dict[str, Any] = {}

        def report(stage: str, done: int, total: int) -> None:
            nonlocal bar
            if total < WORTH_A_BAR:
                return
            if bar is None:  # started on the first stage worth it, stopped with the block
                bar = stack.enter_context(_bar())
            if stage not in tasks:
                tasks[stage] = bar.add_task(LABELS.get(stage, stage), total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield report


def _bar() -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def _lines() -> Report:
    shown: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if shown.get(stage) != tenth:
            shown[stage] = tenth
            click.echo(f"{LABELS.get(stage, stage)}: {done}/{total}", err=True)

    return report
