"""``exobrain quality [REF]``: the quality score of one skill or of every skill you can see
(search's view: your chain, or with ``--all-scopes`` every declaration of the repository)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    plain_table,
    repo_option,
    version_option,
)

SHOWN_PROBLEMS = 10


@click.command(context_settings=HELP, epilog=exit_codes())
@click.argument("ref", metavar="REF", required=False)
@click.option("--limit", type=click.IntRange(min=1), metavar="N", help="Show the top N only.")
@click.option(
    "--all-scopes",
    "everywhere",
    is_flag=True,
    help="Every skill declared in the repository (what skills-status --all lists), not only "
    "the skills your chain sees.",
)
@version_option
@json_option
@repo_option
@command_edge
def main(
    ref: str | None, limit: int | None, everywhere: bool, as_json: bool, repo: Path | None
) -> None:
    """Show the quality score (0..1) and its components: votes, ranks, calibration, usage, fund.

    Signals lose half their weight every half-life; the formula and its constants are in
    signals/weights.json and knowledge/exobrain/signals.md. Without REF: every skill you can
    see, as exobrain search sees them (--all-scopes: every declared skill), best first.
    """
    from exobrain.errors import UsageError
    from exobrain.search.corpus import open_view
    from exobrain.signals.aggregate import aggregate
    from exobrain.signals.quality import load_weights, quality, quality_all
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    view = open_view(ws, everywhere=everywhere)
    weights = load_weights(ws.root)
    agg = aggregate(ws)
    now = time.time()
    source = _rel(ws.root, weights.path)
    if ref is not None:
        try:
            found = view.find(ref if ":" in ref else f"skill:{ref}", ("skill",))
        except UsageError as exc:
            hint = None if everywhere else "pass --all-scopes to see every declared skill"
            raise UsageError(exc.message, hint=hint or exc.hint) from exc
        result = quality(agg, found.ref, weights, now)
        if as_json:
            emit_json({**result.as_json(), "weights": source})
        else:
            _show_one(result, weights, source)
    else:
        entries = {a.ref: a.declaration for a in view.skills() if a.declaration is not None}
        results = sorted(
            quality_all(agg, list(entries), weights, now), key=lambda q: (-q.score, q.skill)
        )[:limit]
        unknown = len(agg.skills() - set(entries))
        if as_json:
            emit_json(
                {
                    "weights": source,
                    "half_life_days": weights.half_life_days,
                    "skills": [
                        {**q.as_json(evidence=False), "lifecycle": entries[q.skill].lifecycle}
                        for q in results
                    ],
                    "undeclared_refs": unknown,
                }
            )
        else:
            _show_all(results, entries, weights, source, unknown)
    for problem in agg.problems[:SHOWN_PROBLEMS]:
        echo_line(f"warning: {problem}", err=True)
    if len(agg.problems) > SHOWN_PROBLEMS:
        click.echo(
            f"warning: … and {len(agg.problems) - SHOWN_PROBLEMS} more skipped ledger lines",
            err=True,
        )
    finish_read(ws)


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return f"{path} (packaged default)"


def _show_one(result, weights, source: str) -> None:
    ev = result.evidence
    votes, cal, usage, fund = ev["votes"], ev["calibration"], ev["usage"], ev["fund"]
    ranks = ", ".join(f"{d} {v['score']:.2f} ({v['raters']})" for d, v in ev["ranks"].items())
    funds = ", ".join(f"{a:g} {c}" for c, a in fund["totals"].items()) or "none"
    detail = {
        "votes": f"{votes['up']} up, {votes['down']} down "
        f"(decayed {votes['up_weight']:.2f} / {votes['down_weight']:.2f})",
        "ranks": ranks,
        "calibration": (
            f"{cal['completed']}/{cal['outcomes']} completed"
            if cal["outcomes"]
            else "no outcomes yet (prior)"
        ),
        "usage": f"{usage['uses']} uses (decayed {usage['decayed']:.2f})",
        "fund": f"{funds} (decayed {fund['decayed']:.2f} {fund['scored_currency']})",
    }
    echo_line(
        f"{result.skill}  quality {result.score:.3f}  "
        f"(weights: {source}, half-life {weights.half_life_days:g} days)"
    )
    rows = [
        [name, f"{value:.3f}", f"{weights.weights[name]:g}", detail[name]]
        for name, value in result.components.items()
    ]
    click.echo(plain_table(rows, ["COMPONENT", "VALUE", "WEIGHT", "EVIDENCE"]))


def _show_all(results, entries, weights, source: str, unknown: int) -> None:
    rows = [
        [
            f"{q.score:.3f}",
            q.skill,
            *(f"{v:.2f}" for v in q.components.values()),
            entries[q.skill].lifecycle,
        ]
        for q in results
    ]
    header = ["SCORE", "SKILL", "VOTES", "RANKS", "CALIB", "USAGE", "FUND", "LIFECYCLE"]
    if rows:
        click.echo(plain_table(rows, header))
    footer = f"{len(rows)} skill(s); weights: {source}, half-life {weights.half_life_days:g} days"
    if unknown:
        footer += f"; {unknown} skill ref(s) in the ledgers match no declaration"
    echo_line(footer)
