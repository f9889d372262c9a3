"""The one progress display: a rich bar or spinner on stderr when it is a terminal, nothing
otherwise (a pipe, a file, a test), so scripts and ``--json`` readers never see it.

Anything that may take more than a second uses it — building the search index, importing,
fetching external skills — so a person at a terminal sees that work is going on. The library
reports through plain callables (a :class:`Display`'s ``tick``) and never imports this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class Display:
    """One running display: :meth:`tick` moves it on, :meth:`say` prints a line above it
    (or plainly, without a terminal)."""

    def __init__(self, label: str, live: Progress | None, task: TaskID | None) -> None:
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
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as live:
        yield Display(label, live, live.add_task(label, total=total))
