"""``exobrain crons``: list the jobs of crons.json, or print them as crontab lines."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    json_option,
    plain_table,
    repo_option,
    stdout_is_terminal,
    version_option,
)

HEADER = ["NAME", "SCHEDULE", "SKILL", "COMMAND"]


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="crons.json is fine (or absent)",
        bad="crons.json breaks its schema or a schedule is not a 5-field cron expression "
        "(those jobs are left out, and --crontab prints nothing)",
    ),
)
@click.option(
    "--crontab",
    is_flag=True,
    help="Print crontab lines that run each job from the repository root.",
)
@version_option
@json_option
@repo_option
@command_edge
def crons(crontab: bool, as_json: bool, repo: Path | None) -> None:
    """List the scheduled jobs in crons.json.

    With --crontab, print them as crontab lines that run each job from the repository root,
    for a person who wants to run them on this machine:

    \b
        (crontab -l 2>/dev/null; exobrain crons --crontab) | crontab -
    """
    from exobrain.errors import UsageError
    from exobrain.gate.crons import CRONS_FILE, crontab_lines, load_crons
    from exobrain.workspace import exobrain_root

    if crontab and as_json:
        raise UsageError("choose one of --crontab and --json")
    root = exobrain_root(repo)
    found = load_crons(root)
    jobs = found.jobs if found else []
    if found is not None:
        for index, message in found.problems:
            entry = found.label(index)
            line = found.line_of(index)
            where = CRONS_FILE + (f":{line}" if line else "") + (f" {entry}" if entry else "")
            echo_line(f"error: {where}: {message}", err=True)  # a bad job's name: raw text
    broken = bool(found and found.problems)
    if as_json:
        emit_json(
            {
                "file": CRONS_FILE,
                "exists": found is not None,
                "jobs": [
                    {"name": j.name, "schedule": j.schedule, "command": j.command, "skill": j.skill}
                    for j in jobs
                ],
            }
        )
    elif crontab:
        if broken:
            raise UsageError(
                f"{CRONS_FILE} has problems (above); fix them before installing",
                hint="skills-validate lists them too",
            )
        click.echo("\n".join(crontab_lines(root, jobs)))
    elif found is None:
        click.echo(f"no {CRONS_FILE} in {root}: nothing is scheduled")
    else:
        _table(jobs)
    sys.exit(2 if broken else 0)


def _table(jobs) -> None:
    cells = [[j.name, " ".join(j.schedule.split()), j.skill or "-", j.command] for j in jobs]
    footer = f"{len(jobs)} job(s). Install them: exobrain crons --crontab"
    if not stdout_is_terminal():
        if cells:
            click.echo(plain_table(cells, HEADER))
        click.echo(footer)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from exobrain.util.terminal import safe_line

    table = Table(header_style="bold")
    for column in HEADER:
        table.add_column(column, overflow="fold" if column == "COMMAND" else "ellipsis")
    for row in cells:  # a command is the committer's text: rich passes ESC and bidi through
        table.add_row(*(Text(safe_line(cell)) for cell in row))
    console = Console()
    console.print(table)
    console.print(footer, style="dim")
