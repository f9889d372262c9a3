"""``skills-validate``: check every registry, declaration, override and SKILL.md in the repo."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    ConsoleEntry,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    keep_until_exit,
    repo_option,
    report_notes,
    version_option,
)


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="clean",
        failed="errors found (or infos, with --strict)",
        bad="a file is unreadable, does not parse or breaks its schema",
    ),
)
@click.option("--strict", is_flag=True, help="Exit 1 on infos (e.g. undeclared skill folders) too.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the errors and the summary line.")
@version_option
@json_option
@repo_option
@command_edge
def main(strict: bool, quiet: bool, as_json: bool, repo: Path | None) -> None:
    """Validate the exobrain's skills.json files and skill folders.

    Infos say what could be done (an undeclared folder, a file in the form of the original
    bash implementation and how to move it to today's); --quiet leaves them out of the listing
    (the summary still counts them).
    """
    from exobrain.cli.progress import progress_display
    from exobrain.findings import ERROR
    from exobrain.gate.validate import exit_code, validate
    from exobrain.util.gcpause import paused_gc
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    keep_until_exit(ws)  # freed by nobody: the process ends (ConsoleEntry)
    with paused_gc(for_good=True), progress_display() as progress:  # (alive until the end)
        ws.sparse.progress = progress  # the first read of a big repository from git
        findings = validate(ws)
    errors = sum(1 for f in findings if f.level == ERROR)
    infos = len(findings) - errors
    code = exit_code(findings, strict)
    if as_json:
        emit_json(
            {
                "errors": errors,
                "info": infos,
                "exit_code": code,
                "findings": [f.as_json() for f in findings],
                "notes": ws.notes,
            }
        )
    else:
        shown = [f for f in findings if not quiet or f.level == ERROR]
        lines = [finding.render() for finding in shown]  # one write: 200,000 lines are fast
        click.echo("\n".join([*lines, f"Errors: {errors}  Info: {infos}"]))
        report_notes(ws.notes)
    sys.exit(code)


#: The console script (pyproject.toml): ends the process without freeing the workspace.
run = ConsoleEntry(main)
