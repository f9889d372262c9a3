"""``exobrain adopt``: bring the skills other installers put in the agents' folders into a
scope, with the source, ref and commit their records give (the logic is
:mod:`exobrain.interop.adopt`)."""

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
    repo_option,
    version_option,
)
from exobrain.model import DECLARED_TIERS


@click.command(
    "adopt",
    context_settings=HELP,
    epilog=exit_codes(
        ok="every skill found was adopted (or would be)",
        failed="some skill could not be adopted (the others were; nothing of it was written)",
    ),
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="AGENT",
    help="Look in this agent's folders (repeatable; default: every agent's).",
)
@click.option("--user", is_flag=True, help="Also look in the agents' user-level folders.")
@click.option("--into", metavar="SCOPE", help="The scope that gets the skills (default: yours).")
@click.option(
    "--tier",
    type=click.Choice(DECLARED_TIERS),
    default="always",
    show_default=True,
    help="Tier of the new declarations.",
)
@click.option(
    "--owner", metavar="OWNER", help="Owner of the declarations (default: the connected person)."
)
@click.option("--dry-run", is_flag=True, help="Show the plan; write nothing.")
@click.option("--yes", is_flag=True, help="Apply the plan without asking (needed off a terminal).")
@version_option
@json_option
@repo_option
@command_edge
def command(
    agents: tuple[str, ...],
    user: bool,
    into: str | None,
    tier: str,
    owner: str | None,
    dry_run: bool,
    yes: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Adopt the skills other tools installed (vercel's npx skills, gh skill install, Claude
    Code's plugins): each comes into SCOPE as an external skill pinned to its commit when the
    installed folder is that commit's, as an imported copy (with its origin) otherwise, and as
    a fork when it was edited since the install. The plan is shown first; on a terminal you are
    asked before anything is written, elsewhere --yes applies it. Nothing the other tool owns
    is changed."""
    from exobrain.artifacts.promote import target_scope
    from exobrain.interop.adopt import agents_for, plan_adoption
    from exobrain.interop.importer import who_owns
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    scope = target_scope(ws, into)
    plan = plan_adoption(
        ws, scope, who_owns(ws, owner), agents=agents_for(agents), user=user, tier=tier
    )
    wanted = [i for i in plan.items if i.action in ("external", "fork", "copy")]
    asking = not (dry_run or yes or as_json) and on_terminal()
    if not as_json:
        _render(plan)
    apply = bool(wanted) and not dry_run and (yes or (asking and _ask(len(wanted), scope)))
    if apply:
        from exobrain.interop.adopt_apply import apply_plan

        apply_plan(ws, plan)
        for item in wanted:  # a copy that would not pass skills-validate, a name taken meanwhile
            if item.status != "adopted" and not as_json:
                echo_line(f"not adopted: {item.name}: {item.problem}")
    code = 1 if plan.problems else 0
    if as_json:
        emit_json({**plan.as_json(), "applied": apply, "exit_code": code})
        sys.exit(code)
    _finish(plan, wanted, apply, dry_run, asking)
    sys.exit(code)


def on_terminal() -> bool:
    """Whether a person is there to answer: both stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask(count: int, scope: str) -> bool:
    return click.confirm(f"adopt {count} skill(s) into {scope}?", default=False)


def _render(plan) -> None:
    echo_line(f"adopt into {plan.scope} (owner {plan.owner}, tier {plan.tier}):")
    if not plan.items:
        click.echo("  no skills installed by other tools were found")
    for item in plan.items:
        origin = item.origin
        where = f"{item.where} ({', '.join(item.agents)})"
        if item.action == "skip":
            echo_line(f"  skip      {item.name}  {where}: {item.problem}")
            continue
        if item.action == "adopted":
            echo_line(f"  adopted   {item.name}  {where}: {item.status}, nothing to do")
            continue
        if item.action == "unrecorded":
            echo_line(f"  leave     {item.name}  {where}: {'; '.join(item.notes)}")
            continue
        source = f"{origin.repo} {origin.path}" if origin and origin.repo else origin.source
        pin = f" at {item.commit}" if item.commit else ""
        echo_line(f"  {item.action:9} {item.name}  {where}")
        echo_line(f"            from {source}{pin}  [{origin.tool}: {origin.record}]")
        for note in item.notes:
            echo_line(f"            note: {note}")


def _finish(plan, wanted, apply: bool, dry_run: bool, asked: bool) -> None:
    done = [i for i in plan.items if i.status == "adopted"]
    if apply:
        click.echo(f"adopted {len(done)} skill(s) into {plan.scope}")
        click.echo("next: skills-validate, then connect-agent AGENT --relink")
        click.echo("the other tools' copies are left as they are; remove them with those tools")
    elif dry_run:
        click.echo("dry run: nothing was written")
    elif asked:
        click.echo("nothing was written")
    elif wanted:
        click.echo("nothing was written: pass --yes to apply this plan (or run it on a terminal)")
