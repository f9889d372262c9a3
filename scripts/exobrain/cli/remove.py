"""``exobrain remove REF``: a skill goes — its declaration, folder and lock entry."""

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


@click.command(
    "remove",
    context_settings=HELP,
    epilog=exit_codes(ok="removed", bad="bad usage, a bad input file, or overrides would dangle"),
)
@click.argument("ref", metavar="REF")
@click.option(
    "--force",
    is_flag=True,
    help="Also remove the overrides elsewhere that would be left pointing at nothing.",
)
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(ref: str, force: bool, dry_run: bool, as_json: bool, repo: Path | None) -> None:
    """Remove the skill REF (skill:NAME[@HOME]): its declaration, its folder (from disk and
    from git's index) and its lock entry. Overrides in other registries that would dangle are
    listed and the removal refused, unless --force removes them too."""
    from exobrain.artifacts.move import remove_skill
    from exobrain.cli.change_output import echo_change
    from exobrain.workspace import open_workspace

    change = remove_skill(open_workspace(repo), ref, force=force, dry_run=dry_run)
    if as_json:
        emit_json(change.as_json())
        return
    click.echo(f"{'would remove' if dry_run else 'removed'} {change.ref}")
    echo_change(change)
    if not dry_run:
        click.echo("next: commit, then connect-agent AGENT --relink")
