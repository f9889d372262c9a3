"""``exobrain scope new PATH`` and ``exobrain scope list``: scopes as commands."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    plain_table,
    repo_option,
    version_option,
)


@click.group(context_settings=HELP, epilog=exit_codes())
@version_option
def group() -> None:
    """Make and list the scopes of this exobrain (groups, teams, people, hosts)."""


@group.command("new", context_settings=HELP, epilog=exit_codes(ok="the scope was made"))
@click.argument("path", metavar="SCOPE")
@click.option("--dry-run", is_flag=True, help="Print what would be written; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def new(path: str, dry_run: bool, as_json: bool, repo: Path | None) -> None:
    """Make the scope SCOPE (e.g. groups/acme, teams/infra, people/dana,
    people/dana/hosts/lap1): its AGENTS.md from a template and an empty skills.json.

    The collection decides the type (scopes.json: groups → group, teams → team, people →
    person, hosts → host); a nested scope needs its parent first. Commit the new files, then
    connect to it: connect-agent AGENT --group NAME (or --scope SCOPE).
    """
    from exobrain.connect.newscope import new_scope
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    made = new_scope(ws.root, ws.config, path, dry_run=dry_run)
    if as_json:
        emit_json({**made.as_json(), "dry_run": dry_run})
        return
    verb = "would make" if dry_run else "made"
    click.echo(f"{verb} the {made.type} scope {made.path}: {', '.join(made.files)}")
    if not dry_run:
        paths = " ".join([made.path, *(f for f in made.files if "/" not in f)])  # .gitignore
        click.echo(
            f"next: git add {paths} && git commit -m 'scope {made.path}', then "
            f"connect-agent AGENT {made.connect_flags}"
        )


@group.command("list", context_settings=HELP, epilog=exit_codes())
@version_option
@json_option
@repo_option
@command_edge
def list_scopes(as_json: bool, repo: Path | None) -> None:
    """List every scope: its path, type, how many skills it declares, and whether your
    connection's chain includes it."""
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    chain = set(ws.chain.paths)
    rows: list[dict[str, str | int | bool]] = []
    cells: list[list[str]] = []
    for scope in ws.scan().scopes:
        registry = ws.registry(scope.path)
        declared = sum(1 for e in registry.entries if not e.is_override)
        connected = scope.path in chain
        rows.append(
            {
                "scope": scope.path,
                "type": scope.type,
                "declared": declared,
                "registry": registry.exists,
                "connected": connected,
            }
        )
        count = str(declared) if registry.exists else "-"
        cells.append([scope.path, scope.type, count, "yes" if connected else ""])
    if as_json:
        emit_json({"scopes": rows, "chain": ws.chain.paths})
    else:
        click.echo(plain_table(cells, ["SCOPE", "TYPE", "DECLARED", "IN-CHAIN"]))
        click.echo(f"{len(rows)} scope(s); make one: exobrain scope new COLLECTION/NAME")
    for finding in ws.findings:
        click.echo(finding.render(), err=True)
