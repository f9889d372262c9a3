"""The one progress display: a rich bar on stderr when it is a terminal, nothing otherwise (a
pipe, a file, a test), so scripts and ``--json`` readers never see it.

Anything that may take more than a second uses it — building the search index and embedding,
and the first read of a big repository from git by ``skills-status --all`` and
``skills-validate`` (fetching, registries, SKILL.md files): :func:`progress_display`, a bar per
stage the library reports through :data:`~exobrain.util.progress.Progress`; importing and
fetching external skills: :func:`progress`, one bar or spinner with the item under way — so a
person at a terminal sees that work is going on. The library reports through plain
callables and never imports this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

import click

from exobrain.util.progress import Progress

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

LABELS = {
    "git-list": "listing folders in git",
    "git-fetch": "fetching files from the remote",
    "git-registries": "reading registries from git",
    "git-skills": "reading SKILL.md files from git",
    "index": "reading skills",
    "minilm": "embedding (MiniLM)",
    "wordllama": "embedding (WordLlama)",
}
#: A search-cache stage of fewer items is over before a bar would be seen.
WORTH_A_BAR = 50


class Display:
    """One running display: :meth:`tick` moves it on, :meth:`say` prints a line above it
    (or plainly, without a terminal)."""

    def __init__(self, label: str, live: RichProgress | None, task: TaskID | None) -> None:
        self.label = label
        self.live = live
        self.task = task

    def tick(self, done: int, total: int | None = None, what: str = "") -> None:
        """``done`` of ``total`` steps (None: unknown); ``what`` is the one under way."""
        if self.live is None or self.task is None:
            return
        description = f"{self.label}: {what}" if what else self.label
        self.live.update(self.task, completed=done, total=total, description=description)

    def say(self, text: str, style: str | None = None) -> None:
        """A line of output that stays (on stdout, or above the display on a terminal)."""
        if self.live is not None and sys.stdout.isatty():
            from rich.text import Text

            self.live.console.print(Text(text, style=style or ""))
        else:
            click.echo(text)


@contextmanager
def progress(label: str, *, total: int | None = None, quiet: bool = False) -> Iterator[Display]:
    """Show ``label`` with a bar (``total`` known) or a spinner while the block runs, on a
    terminal's stderr; the display goes away when the block ends. ``quiet`` (``--json``)
    shows nothing."""
    if quiet or not sys.stderr.isatty():
        yield Display(label, None, None)
        return
    with _bar() as live:
        yield Display(label, live, live.add_task(label, total=total))


@contextmanager
def progress_display(*, plain_lines: bool = False) -> Iterator[Progress | None]:
    """Yield a ``progress(stage, done, total)`` callback for the search family, or None.

    On a terminal, a bar per stage, drawn only for a stage of at least :data:`WORTH_A_BAR`
    items; elsewhere nothing, or (``plain_lines``, for ``exobrain index``, whose whole job is
    this work) a line per tenth on stderr."""
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


def _bar() -> RichProgress:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def _lines() -> Progress:
    shown: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if shown.get(stage) != tenth:
            shown[stage] = tenth
            click.echo(f"{LABELS.get(stage, stage)}: {done}/{total}", err=True)

    return report
