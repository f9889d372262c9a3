"""``exobrain signal KIND REF …`` records a signal; ``exobrain signals REF`` lists them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    json_option,
    plain_table,
    repo_option,
    version_option,
)

CONTEXT = HELP
RECORDED = exit_codes(ok="recorded", bad="bad usage: an unknown skill or a value out of range")
#: Lets a value such as -1 or -5 through as an argument, to be refused with a clear message.
NUMBERS = {**CONTEXT, "ignore_unknown_options": True}


def _common(func):
    func = click.option("--agent", metavar="AGENT", help="The agent the signal is about.")(func)
    func = click.option(
        "--host",
        metavar="HOST",
        help="File it under this host (default: $EXOBRAIN_HOST, the connected "
        "host scope, else this machine's short hostname).",
    )(func)
    return version_option(repo_option(json_option(func)))


def _record(kind: str, ref_text: str, value: Any, options: dict[str, Any], **extra: Any) -> None:
    from exobrain.agents import get_agent
    from exobrain.signals.record import record
    from exobrain.workspace import open_workspace

    if options["agent"]:
        get_agent(options["agent"])
    ws = open_workspace(options["repo"])
    done = record(ws, kind, ref_text, value, agent=options["agent"], host=options["host"], **extra)
    line, rel = done.line, done.path.relative_to(ws.root).as_posix()
    if done.warning:
        echo_line(f"warning: {done.warning}", err=True)
    if options["as_json"]:
        emit_json({**line, "file": rel})
        return
    from exobrain.signals.view import describe

    via = f" (used as {line['via']}, which it supersedes)" if "via" in line else ""
    echo_line(f"recorded {kind} {describe(line)} on {line['skill']}{via} by {line['by']} ({rel})")


@click.group(context_settings=CONTEXT, epilog=RECORDED)
@version_option
def signal() -> None:
    """Record a signal about a skill in your ledger (signals/<person>/<host>.jsonl).

    REF is skill:NAME or skill:NAME@HOME (the skill must be declared). Commit the ledger
    like any other file: ledgers merge without conflicts.
    """


@signal.command(context_settings=NUMBERS, epilog=RECORDED)
@click.argument("ref", metavar="REF")
@click.argument("value", metavar="up|down")
@_common
@command_edge
def vote(ref: str, value: str, **options: Any) -> None:
    """Vote a skill up or down (also 1 / -1). Your latest vote replaces earlier ones."""
    _record("vote", ref, value, options)


@signal.command(context_settings=NUMBERS, epilog=RECORDED)
@click.argument("ref", metavar="REF")
@click.argument("dimension", metavar="clarity|accuracy|scope|novelty")
@click.argument("value", metavar="0..1")
@_common
@command_edge
def rank(ref: str, dimension: str, value: str, **options: Any) -> None:
    """Rate one dimension of a skill from 0 (poor) to 1 (excellent); replaces your last rating."""
    _record("rank", ref, value, options, dimension=dimension)


@signal.command(context_settings=CONTEXT, epilog=RECORDED)
@click.argument("ref", metavar="REF")
@click.option("--auto", is_flag=True, help="Written by a hook or another program, not by hand.")
@_common
@command_edge
def usage(ref: str, auto: bool, **options: Any) -> None:
    """Count one use of a skill (agent hooks do this for you)."""
    _record("usage", ref, 1, options, auto=auto)


@signal.command(context_settings=CONTEXT, epilog=RECORDED)
@click.argument("ref", metavar="REF")
@click.argument("outcome", metavar="completed|failed")
@click.option("--note", metavar="TEXT", help="What happened, in a few words.")
@_common
@command_edge
def calibration(ref: str, outcome: str, note: str | None, **options: Any) -> None:
    """Record whether a use of the skill reached its declared outcome (also true / false)."""
    _record("calibration", ref, outcome, options, note=note)


@signal.command(context_settings=NUMBERS, epilog=RECORDED)
@click.argument("ref", metavar="REF")
@click.argument("amount", metavar="AMOUNT")
@click.option(
    "--currency",
    default="token",
    show_default=True,
    metavar="UNIT",
    help="What AMOUNT is counted in.",
)
@_common
@command_edge
def fund(ref: str, amount: str, currency: str, **options: Any) -> None:
    """Commit an amount (> 0) to a skill's development."""
    _record("fund", ref, amount, options, currency=currency)


@click.command(context_settings=CONTEXT, epilog=exit_codes())
@click.argument("ref", metavar="REF", required=False)
@click.option(
    "--compact",
    is_flag=True,
    help="Fold a person's old lines into snapshot lines (no number changes).",
)
@click.option("--person", metavar="ID", help="With --compact: whose ledgers (default: yours).")
@click.option(
    "--older-than",
    type=click.IntRange(min=0),
    metavar="DAYS",
    help="With --compact: lines older than DAYS (default: signals/weights.json).",
)
@click.option("--dry-run", is_flag=True, help="With --compact: show what would change.")
@version_option
@json_option
@repo_option
@command_edge
def signals(
    ref: str | None,
    compact: bool,
    person: str | None,
    older_than: int | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """List the signals and comments about a skill and their aggregate, or compact ledgers.

    The aggregate follows SPEC-013: a voter's latest vote counts, a rater's latest rank per
    dimension counts, uses and funds add up, calibration outcomes give a completion rate.
    """
    from exobrain.errors import UsageError
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    if compact:
        if ref:
            raise UsageError("--compact works on a person's ledgers, not on one skill: drop REF")
        _compact(ws, person, older_than, dry_run, as_json)
        return
    if ref is None:
        raise UsageError("name a skill (exobrain signals skill:NAME) or pass --compact")
    if person or older_than is not None or dry_run:
        raise UsageError("--person, --older-than and --dry-run go with --compact")
    _list(ws, ref, as_json)


def _list(ws, ref_text: str, as_json: bool) -> None:
    from exobrain.signals.view import describe, skill_signals

    facts = skill_signals(ws, ref_text)
    lines, totals = facts["signals"], facts["aggregate"]
    if as_json:
        emit_json(facts)
    else:
        echo_line(f"{facts['skill']}: {len(lines)} signal line(s)")
        if lines:
            # a hand-written line's host and agent may be anything JSON holds: shown as
            # text, through the output filter (plain_table)
            rows = [
                [o["ts"], o["kind"], describe(o), o["by"], _field(o, "host"), _field(o, "agent")]
                for o in lines
            ]
            click.echo(plain_table(rows, ["TS", "KIND", "VALUE", "BY", "HOST", "AGENT"]))
        click.echo(_summary_line(totals, len(facts["comments"])))
    for problem in facts["problems"]:
        echo_line(f"warning: {problem}", err=True)


def _field(line: dict[str, Any], key: str) -> str:
    value = line.get(key)
    return "-" if value is None else value if isinstance(value, str) else json.dumps(value)


def _summary_line(totals: dict[str, Any], comments: int) -> str:
    votes, usage, cal = totals["votes"], totals["usage"], totals["calibration"]
    ranks = ", ".join(f"{d} {v['mean']:.2f} ({v['raters']})" for d, v in totals["ranks"].items())
    rate = f"{cal['completed']}/{cal['outcomes']} completed" if cal["outcomes"] else "none"
    funds = ", ".join(f"{a:g} {c}" for c, a in totals["fund"].items()) or "none"
    return (
        f"aggregate: votes +{votes['up']} -{votes['down']} (latest per voter); "
        f"ranks {ranks or 'none'}; uses {usage['uses']}; calibration {rate}; fund {funds}; "
        f"comments {comments}"
    )


def _compact(ws, person: str | None, older_than: int | None, dry_run: bool, as_json: bool) -> None:
    import time

    from exobrain.signals.compact import compact_person
    from exobrain.signals.ledger import author, check_id
    from exobrain.signals.quality import load_weights
    from exobrain.signals.timestamps import day_label, day_number, format_ts

    who = check_id(person, "person") if person else author(ws)
    days = (
        older_than
        if older_than is not None
        else int(load_weights(ws.root)["compact"]["older_than_days"])
    )
    cutoff = day_number(format_ts(time.time())) - days
    results = compact_person(ws.root, who, cutoff, dry_run=dry_run)
    if as_json:
        emit_json(
            {
                "person": who,
                "before": day_label(cutoff),
                "dry_run": dry_run,
                "files": [r.__dict__ for r in results],
            }
        )
        return
    if not results:
        click.echo(f"no ledgers for {who} (signals/{who}/*.jsonl)")
        return
    verb = "would compact" if dry_run else "compacted"
    for r in results:
        state = (
            f"{r.before} → {r.after} lines ({r.snapshots} snapshot)" if r.changed else "unchanged"
        )
        echo_line(f"{r.rel}: {state}")
    changed = sum(r.changed for r in results)
    click.echo(
        f"{verb} {changed} of {len(results)} ledger(s) of {who}: lines before "
        f"{day_label(cutoff)} folded; every aggregate is unchanged"
    )
