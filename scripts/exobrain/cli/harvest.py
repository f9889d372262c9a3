"""``exobrain harvest``: what the seed's instances changed in the framework and added."""

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
    repo_option,
    version_option,
)


@click.command(
    "harvest",
    context_settings=HELP,
    epilog=exit_codes(failed="an instance could not be read, or an operation failed"),
)
@click.argument("instances", nargs=-1, metavar="[INSTANCE]...")
@click.option(
    "--pick",
    "pick_name",
    metavar="NAME",
    help="Copy the only-there skill NAME into the seed (with --into).",
)
@click.option("--into", metavar="SCOPE", help="The shared seed scope that receives --pick.")
@click.option(
    "--instance",
    "chosen",
    metavar="SOURCE",
    help="With --pick: the instance to take the skill from, when several have it.",
)
@click.option(
    "--owner",
    metavar="OWNER",
    help="With --pick: owner of the new declaration (default: its owner in the instance).",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    instances: tuple[str, ...],
    pick_name: str | None,
    into: str | None,
    chosen: str | None,
    owner: str | None,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Compare each instance with this seed: its state (ok, dirty, absent, not an exobrain),
    framework files that differ (differs), lag behind the seed (behind) or were deleted
    (missing), and files and skills only the instance has (only-there).

    Instances are INSTANCE arguments, else the "instances" list of .exobrain.json: local paths
    or git URLs (fetched into .exobrain-cache/instances/). Instances are only read; what they
    committed is compared. Exit 1 when an instance could not be read.
    """
    from exobrain.errors import UsageError
    from exobrain.instance.harvest import listed_instances
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    sources = list(instances) or listed_instances(ws.connection)
    if not sources and not chosen:
        raise UsageError(
            "no instances to harvest",
            hint='list them in .exobrain.json: "instances": ["../alice-exobrain", '
            '"https://git.example.com/team/exobrain.git"], or pass them '
            "as arguments",
        )
    if (pick_name is None) != (into is None):
        raise UsageError("--pick NAME and --into SCOPE go together")
    if pick_name is not None:
        _pick(ws, sources, pick_name, into or "", chosen, owner, as_json)
        return
    if chosen or owner:
        raise UsageError("--instance and --owner only go with --pick")
    _report(ws.root, sources, as_json)


def _report(root: Path, sources: list[str], as_json: bool) -> None:
    from exobrain.instance.harvest import harvest

    reports = harvest(root, sources)
    code = 0 if all(r.readable for r in reports) else 1
    if as_json:
        emit_json({"instances": [r.as_json() for r in reports], "exit_code": code})
        sys.exit(code)
    for report in reports:
        commit = f" at {report.commit[:12]}" if report.commit else ""
        reason = f" ({report.reason})" if report.reason else ""
        click.echo(f"{report.source}: {report.state}{reason}{commit}")
        for warning in report.warnings:
            click.echo(f"  warning: {warning}")
        for fact in report.facts:
            click.echo(f"  {fact.line()}")
        if report.readable and not report.facts:
            click.echo("  same framework as the seed; nothing only there")
    kinds: dict[str, int] = {}
    for report in reports:
        for fact in report.facts:
            kinds[fact.kind] = kinds.get(fact.kind, 0) + 1
    states: dict[str, int] = {}
    for report in reports:
        states[report.state] = states.get(report.state, 0) + 1
    click.echo(
        f"{len(reports)} instance(s): "
        + ", ".join(f"{n} {s}" for s, n in states.items())
        + ("; " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) if kinds else "")
    )
    sys.exit(code)


def _pick(
    ws,
    sources: list[str],
    name: str,
    into: str,
    chosen: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    from exobrain.instance.pick import pick

    picked = pick(ws, sources, name, into, instance=chosen, owner=owner)
    if as_json:
        emit_json(picked.as_json())
        return
    click.echo(
        f"picked {picked.origin} from {picked.source} ({picked.commit[:12]}) into "
        f"{picked.scope}: {len(picked.files)} file(s), declared optional, owner "
        f"{picked.owner}" + (f", locked at {picked.version}" if picked.version else "")
    )
    if picked.proof:
        click.echo(f"  proof it brings: {', '.join(picked.proof)}")
    else:
        click.echo(
            "  it brings no proof: add a test, an eval or ab-results.json to its folder "
            "(authoring-review will ask)"
        )
    click.echo("next: skills-validate, git add the folder and the registry, authoring-review")
