"""``exobrain lock [--check]``: bring every skills.lock.json up to date, or check them (CI)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    repo_option,
    report_findings,
    version_option,
)


@click.command(
    "lock",
    context_settings=HELP,
    epilog=exit_codes(
        ok="every lock is up to date (now)",
        failed="content changed without a version bump, a skill could not be read (the "
        "others are locked), or (with --check) a lock is stale",
    ),
)
@click.option("--check", is_flag=True, help="Only report; exit 1 when any lock is out of date.")
@version_option
@json_option
@repo_option
@command_edge
def command(check: bool, as_json: bool, repo: Path | None) -> None:
    """Recompute the lock of every versioned skill; content changed without a version bump is
    refused (exobrain register PATH --bump patch). Entries of skills that are no longer
    declared, or whose folder is gone, are dropped."""
    from exobrain.artifacts.register import lock_all
    from exobrain.util.terminal import safe_line
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    report = lock_all(ws, check=check)
    code = 2 if ws.has_bad_input else 1 if (report.refused or (check and report.stale)) else 0
    if as_json:
        emit_json(
            {
                "stale": report.stale,
                "written": report.written,
                "dropped": report.dropped,
                "refused": report.refused,
                "exit_code": code,
            }
        )
    else:
        for line in report.stale:  # a line may quote what a file holds: filtered
            click.echo(("stale  " if check else "       ") + safe_line(line))
        for ref in report.written:
            click.echo(f"locked {ref}")
        for ref in report.dropped if not check else []:
            click.echo(f"dropped {ref}")
        if not report.stale and code == 0:
            click.echo("all locks up to date")
    report_findings(ws.findings)
    sys.exit(code)
