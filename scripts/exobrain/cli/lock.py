"""``exobrain lock [--check]``: bring every skills.lock.json up to date, or check them (CI)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import command_edge, emit_json, json_option, repo_option


@click.command("lock")
@click.option("--check", is_flag=True, help="Only report; exit 1 when any lock is out of date.")
@json_option
@repo_option
@command_edge
def command(check: bool, as_json: bool, repo: Path | None) -> None:
    """Recompute the lock of every versioned skill; content changed without a version bump is
    refused (exobrain register PATH --bump patch)."""
    from exobrain.artifacts.register import lock_all
    from exobrain.workspace import open_workspace

    report = lock_all(open_workspace(repo), check=check)
    code = 1 if (report.refused or (check and report.stale)) else 0
    if as_json:
        emit_json(
            {
                "stale": report.stale,
                "written": report.written,
                "refused": report.refused,
                "exit_code": code,
            }
        )
    else:
        for line in report.stale:
            click.echo(("stale  " if check else "       ") + line)
        for ref in report.written:
            click.echo(f"locked {ref}")
        if not report.stale:
            click.echo("all locks up to date")
    sys.exit(code)
