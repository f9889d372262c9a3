"""``exobrain move REF --to SCOPE``: a skill changes scope, with everything that names it."""

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


@click.command("move", context_settings=HELP, epilog=exit_codes(ok="moved"))
@click.argument("ref", metavar="REF")
@click.option("--to", "scope", required=True, metavar="SCOPE", help="The scope to move it into.")
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(ref: str, scope: str, dry_run: bool, as_json: bool, repo: Path | None) -> None:
    """Move the skill REF (skill:NAME[@HOME]) into SCOPE: its folder with git mv, its
    declaration with every field, the overrides that named its old home (rewritten to follow
    it), and its lock entry. Prints what the authoring gate will say about the new home."""
    from exobrain.artifacts.move import move_skill
    from exobrain.cli.change_output import echo_change
    from exobrain.gate.preview import after_move
    from exobrain.scopes import scope_at
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    change = move_skill(ws, ref, scope, dry_run=dry_run)
    assert change.to_scope is not None
    kinds = [scope_at(ws.root, s, ws.config) for s in (change.from_scope, change.to_scope)]
    old_type = kinds[0].type if kinds[0] else "unknown"
    new_type = kinds[1].type if kinds[1] else "unknown"
    name = change.ref.split(":", 1)[1].split("@", 1)[0]
    gate = after_move(ws.root, (change.from_scope, old_type), (change.to_scope, new_type), name)
    if as_json:
        emit_json({**change.as_json(), "authoring_review": gate})
        return
    verb = "would move" if dry_run else "moved"
    click.echo(f"{verb} {change.ref} → {change.new_ref}")
    echo_change(change)
    for line in change.notes:
        click.echo(f"  note: {line}")
    for line in gate:
        click.echo(line)
    if not dry_run:
        click.echo("next: review with git status, commit, then connect-agent AGENT --relink")
