"""``exobrain index``: the search cache brought up to date for the whole repository."""

from __future__ import annotations

import time
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    repo_option,
    version_option,
)


@click.command(
    "index",
    context_settings=HELP,
    epilog=exit_codes(
        ok="the cache is up to date",
        failed="the cache could not be written (it is locked or not a folder)",
        bad="bad usage or a broken registry",
    ),
)
@click.option("--lexical", is_flag=True, help="The lexical index only; embed nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(lexical: bool, as_json: bool, repo: Path | None) -> None:
    """Read every skill and knowledge document of the repository into the search cache
    (.exobrain-cache/) and embed every text an installed encoder has not seen, with a progress
    display. Searches do this piecemeal and leave a long first embedding to a background
    build; this does it all now (waiting for a background build that is running)."""
    from exobrain.cli.progress import progress_display
    from exobrain.search import background
    from exobrain.search.build import build_index
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    if background.running(ws.root) and not as_json:
        click.echo("a background build is running; waiting for it to finish", err=True)
    started = time.perf_counter()
    with progress_display(plain_lines=True) as progress:  # on stderr: --json stays clean
        update = build_index(ws, semantic=not lexical, progress=progress)
    seconds = time.perf_counter() - started
    if as_json:
        emit_json(
            {
                "checked": update.checked,
                "reindexed": len(update.reindexed),
                "removed": len(update.removed),
                "embedded": update.embedded,
                "notes": [update.rebuilt] if update.rebuilt else [],
                "seconds": round(seconds, 3),
            }
        )
    else:
        if update.rebuilt:
            click.echo(f"note: {update.rebuilt}", err=True)
        embedded = ", ".join(f"{role} {n}" for role, n in update.embedded.items()) or "nothing"
        click.echo(
            f"{update.checked} artifacts checked, {len(update.reindexed)} read, "
            f"{len(update.removed)} removed; embedded: {embedded} ({seconds:.1f} s)"
        )
    finish_read(ws)  # the files it could not read are warnings; a broken registry exits 2
