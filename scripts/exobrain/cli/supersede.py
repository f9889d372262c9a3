"""``exobrain supersede NEW OLD``: record that NEW replaces OLD."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    repo_option,
    version_option,
)


@click.command("supersede", context_settings=HELP, epilog=exit_codes(ok="recorded"))
@click.argument("new", metavar="NEW")
@click.argument("old", metavar="OLD")
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(new: str, old: str, dry_run: bool, as_json: bool, repo: Path | None) -> None:
    """Write links.supersedes: OLD into NEW's SKILL.md. Wherever NEW is visible, OLD then
    redirects to it (connect-agent links NEW instead of OLD)."""
    from exobrain.artifacts.evolution import supersede
    from exobrain.workspace import open_workspace

    outcome = supersede(open_workspace(repo), new, old, dry_run=dry_run)
    emit_json(outcome.as_json()) if as_json else click.echo(outcome.summary)
