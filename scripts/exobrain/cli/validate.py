"""``skills-validate``: check every registry, declaration, override and SKILL.md in the repo."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import command_edge, emit_json, json_option, repo_option, report_notes


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--strict", is_flag=True, help="Exit 1 on infos (e.g. undeclared skill folders) too.")
@json_option
@repo_option
@command_edge
def main(strict: bool, as_json: bool, repo: Path | None) -> None:
    """Validate the exobrain's skills.json files and skill folders.

    Exit 0 when clean, 1 on errors (or infos with --strict), 2 when a file is unreadable,
    unparseable or breaks its schema.
    """
    from exobrain.findings import ERROR
    from exobrain.gate.validate import exit_code, validate
    from exobrain.treecache import paused_gc
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    with paused_gc():  # what it reads stays alive until the end: collecting it is waste
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
        lines = [finding.render() for finding in findings]  # one write: 200,000 lines are fast
        click.echo("\n".join([*lines, f"Errors: {errors}  Info: {infos}"]))
        report_notes(ws.notes)
    sys.exit(code)
