"""``skills-promote``: opt a skill in or out, force a declaration, or list a registry."""

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
    plain_table,
    repo_option,
    report_findings,
    stdout_is_terminal,
    version_option,
)
from exobrain.model import TIERS

LIST_HEADER = ["#", "NAME", "KIND", "FROM", "OWNER", "TIER", "FORCE", "AGENTS"]


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="changed (or nothing to change)",
        bad="bad usage (an unknown skill, scope or tier) or a broken registry; nothing written",
    ),
)
@click.argument("name", metavar="NAME", required=False)
@click.option(
    "--from",
    "origin",
    metavar="HOME",
    help="The skill's home scope (global, groups/acme, …) or 'external'.",
)
@click.option("--to", "tier", type=click.Choice(TIERS), help="The tier the override sets.")
@click.option(
    "--owner", metavar="OWNER", help="The external skill's owner (needed with --from external)."
)
@click.option(
    "--into",
    metavar="SCOPE",
    help="The registry to write (default: your connected person scope, else your "
    "deepest connected scope; a guest must name one).",
)
@click.option("--remove", is_flag=True, help="Delete the override instead of setting it.")
@click.option(
    "--in",
    "home",
    metavar="HOME",
    help="With --force: the scope whose skills.json declares the skill.",
)
@click.option(
    "--force",
    type=click.BOOL,
    is_flag=False,
    flag_value=True,
    default=None,
    metavar="[=true|false]",
    help="Set force on the declaration in --in; --force=false clears it.",
)
@click.option("--list", "show_list", is_flag=True, help="List the entries of the --into registry.")
@click.option("--dry-run", is_flag=True, help="Print the change and write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def main(
    name: str | None,
    origin: str | None,
    tier: str | None,
    owner: str | None,
    into: str | None,
    remove: bool,
    home: str | None,
    force: bool | None,
    show_list: bool,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Opt skills in or out of your scopes without hand-editing skills.json.

    \b
      skills-promote NAME --from HOME --to TIER [--owner O] [--into SCOPE]
      skills-promote NAME --from HOME [--owner O] [--into SCOPE] --remove
      skills-promote NAME --in HOME --force[=false]
      skills-promote --list [--into SCOPE]

    An override {name, from, tier} in your registry turns a skill declared elsewhere on at any
    tier, or off. --force makes a declaration reach everyone whose chain includes its home
    (a reviewed act: commit it in a pull request). Add --dry-run to see the change first.
    """
    from exobrain.workspace import open_workspace

    mode = _mode(name, origin, tier, owner, into, remove, home, force, show_list)
    ws = open_workspace(repo)
    if mode == "list":
        _list(ws, into, as_json)
        return
    from exobrain.artifacts import promote as lib

    assert name is not None  # _mode refuses every form but --list without a name
    if mode == "force":
        assert home is not None  # _mode: --force goes with --in
        change = lib.set_force(ws, name, home, bool(force), owner=owner, dry_run=dry_run)
    elif remove:
        assert origin is not None  # _mode: an override needs --from
        change = lib.unpromote(ws, name, origin, owner=owner, into=into, dry_run=dry_run)
    else:
        assert origin is not None and tier is not None  # _mode: --from, and --to unless --remove
        change = lib.promote(ws, name, origin, tier, owner=owner, into=into, dry_run=dry_run)
    steps = lib.next_steps(ws) if change.changed and not dry_run else []
    if as_json:
        emit_json({**change.as_json(), "next": steps})
        return
    click.echo(change.summary())
    effect = change.effect
    if effect and not effect.in_chain:
        click.echo(f"for you: no change ({change.scope} is not in your connected chain)")
    elif effect and effect.before != effect.after:
        click.echo(f"for you: {effect.skill} {effect.before} → {effect.after}")
    elif effect:
        click.echo(f"for you: {effect.skill} stays {effect.after}")
    for note in change.notes:
        click.echo(f"note: {note}")
    for step in steps:
        click.echo(f"next: {step}")


def _mode(
    name: str | None,
    origin: str | None,
    tier: str | None,
    owner: str | None,
    into: str | None,
    remove: bool,
    home: str | None,
    force: bool | None,
    show_list: bool,
) -> str:
    """Which of the four forms the options make, refusing mixtures."""
    from exobrain.errors import UsageError

    def refuse(form: str, **given: object) -> None:
        extra = [f"--{k.replace('_', '-')}" for k, v in given.items() if v not in (None, False)]
        if extra:
            raise UsageError(f"{form} does not take {', '.join(extra)}")

    if show_list:
        if name:
            raise UsageError("--list takes no skill name (it lists the --into registry)")
        refuse(
            "--list",
            **{
                "from": origin,
                "to": tier,
                "owner": owner,
                "remove": remove,
                "in": home,
                "force": force,
            },
        )
        return "list"
    if not name:
        raise UsageError("name the skill (or use --list)", hint="skills-promote --help")
    if force is not None or home is not None:
        if force is None or home is None:
            raise UsageError("--force and --in go together: NAME --in HOME --force[=false]")
        refuse("--force", **{"from": origin, "to": tier, "remove": remove, "into": into})
        return "force"
    if origin is None:
        raise UsageError(
            "--from HOME is required (the scope that declares the skill, or 'external')",
            hint="skills-status --all shows each skill's home",
        )
    if remove and tier:
        raise UsageError("--remove deletes the override: drop --to")
    if not remove and not tier:
        raise UsageError(f"--to TIER is required ({', '.join(TIERS)}), or --remove")
    return "override"


def _list(ws, into: str | None, as_json: bool) -> None:
    from exobrain.artifacts.promote import list_registry

    registry = list_registry(ws, into)
    rel = registry.path.relative_to(ws.root).as_posix()
    raw = registry.data.get("skills") if isinstance(registry.data, dict) else None
    if as_json:
        emit_json(
            {
                "scope": registry.scope,
                "file": rel,
                "exists": registry.exists,
                "entries": raw if isinstance(raw, list) else [],
                "findings": [f.as_json() for f in registry.findings],
            }
        )
    else:
        cells = [
            [
                str(e.index),
                e.name,
                "override" if e.is_override else ("external" if e.source else "declaration"),
                e.origin or "-",
                e.owner or "-",
                e.tier,
                "-" if e.is_override else ("yes" if e.force else "no"),
                e.agent or (("not " + ",".join(e.skip_agents)) if e.skip_agents else "-"),
            ]
            for e in registry.entries
        ]
        title = (
            f"{rel}: {len(cells)} entr{'y' if len(cells) == 1 else 'ies'}"
            if registry.exists or registry.findings
            else f"{rel}: no such file yet (no entries)"
        )
        _render(title, cells)
    report_findings(registry.findings)
    if registry.findings:
        sys.exit(2)


def _render(title: str, cells: list[list[str]]) -> None:
    """A rich table on a terminal, aligned plain text otherwise."""
    if not stdout_is_terminal():
        click.echo(title)
        if cells:
            click.echo(plain_table(cells, LIST_HEADER))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", header_style="bold")
    for column in LIST_HEADER:
        table.add_column(column, no_wrap=True)
    for row in cells:
        table.add_row(*(Text(cell) for cell in row))
    Console().print(table)
