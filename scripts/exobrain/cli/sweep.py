"""``exobrain sweep``: deprecate active skills whose quality and usage stayed low."""

from __future__ import annotations

import time
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    repo_option,
    version_option,
)


@click.command(context_settings=HELP, epilog=exit_codes())
@click.option("--dry-run", is_flag=True, help="Print what would be deprecated; change nothing.")
@click.option(
    "--window",
    type=click.FloatRange(min=1),
    metavar="DAYS",
    help="How long the signals must have stayed low (default: signals/weights.json).",
)
@version_option
@json_option
@repo_option
@command_edge
def main(dry_run: bool, window: float | None, as_json: bool, repo: Path | None) -> None:
    """Move active skills to deprecated when, over the whole window, their quality stayed
    under the threshold and they were used fewer times than the minimum (both in
    signals/weights.json). Skills declared or changed within the window are kept.

    Deprecated skills still resolve (flagged) but rank lower; prints why for each.
    """
    from exobrain.signals.quality import load_weights
    from exobrain.signals.sweep import apply_sweep, plan_sweep
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    weights = load_weights(ws.root)
    days = window if window is not None else float(weights["sweep"]["window_days"])
    decisions = plan_sweep(ws, weights, time.time(), days)
    written = [] if dry_run else apply_sweep(ws.root, decisions)
    if as_json:
        emit_json(
            {
                "dry_run": dry_run,
                "window_days": days,
                "registries_changed": written,
                "decisions": [d.as_json() for d in decisions],
            }
        )
    else:
        _report(decisions, written, dry_run, days, weights)
    finish_read(ws)


def _report(decisions, written: list[str], dry_run: bool, days: float, weights) -> None:
    chosen = [d for d in decisions if d.deprecate]
    verb = "would deprecate" if dry_run else "deprecated"
    for d in chosen:
        click.echo(f"{verb} {d.ref}: {d.reason}")
    for d in decisions:
        if not d.deprecate:
            click.echo(f"{d.ref}: {d.reason}")
    files = f" ({', '.join(written)})" if written else ""
    click.echo(
        f"{verb} {len(chosen)} skill(s){files}; window {days:g} days, "
        f"quality under {weights['sweep']['quality_below']:g}, "
        f"fewer than {weights['sweep']['usage_below']:g} uses"
    )
