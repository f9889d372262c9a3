"""``exobrain sparse``: the sparse checkout the connection needs, shown or applied."""

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
    context_settings=HELP,
    epilog=exit_codes(
        ok="shown, or applied",
        failed="git could not set the sparse checkout",
        bad="not inside an exobrain, or a broken registry or connection file",
    ),
)
@click.option("--apply", "apply", is_flag=True, help="Make the checkout this cone now.")
@click.option("-q", "--quiet", is_flag=True, help="Print only what changed.")
@version_option
@json_option
@repo_option
@command_edge
def command(apply: bool, quiet: bool, as_json: bool, repo: Path | None) -> None:
    """Show the folders your connection needs on disk (a cone-mode sparse checkout): the
    framework, your chain's scopes, the skills you opted into from elsewhere, the registries
    of your external skills and your own signal ledgers; --apply sets it
    (git sparse-checkout set --cone). connect-agent AGENT --sparse sets it and keeps it in
    step after every pull."""
    from exobrain.connect.cone import apply_cone, cone_for
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    cone = cone_for(ws)
    if apply and cone.changes:
        apply_cone(ws, cone)
    if as_json:
        emit_json(
            {
                "folders": list(cone.folders),
                "current": list(cone.current) if cone.current is not None else None,
                "added": cone.added,
                "removed": cone.removed,
                "applied": apply and cone.changes,
            }
        )
        return
    if not quiet:
        for folder in cone.folders:
            click.echo(folder)
    verb = "" if apply else "would be "
    if cone.current is None:
        state = "a full checkout"
        click.echo(f"sparse checkout of {len(cone.folders)} folder(s) {verb}set (was {state})")
    elif cone.changes:
        click.echo(
            f"sparse checkout: {len(cone.added)} folder(s) {verb}added, "
            f"{len(cone.removed)} {verb}removed"
        )
    elif not quiet:
        click.echo("sparse checkout: already this cone")
