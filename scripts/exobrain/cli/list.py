"""``exobrain list``: the artifacts you can see, filtered (JSONLogic) and sorted (read-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    plain_table,
    repo_option,
    version_option,
)


@click.command(
    "list",
    context_settings=HELP,
    epilog=exit_codes(bad="bad usage (an unknown type, field, operator or sort key)"),
)
@click.option(
    "--types",
    "types",
    default="skill,knowledge",
    show_default=True,
    metavar="T[,T]",
    help="Artifact types: skill, knowledge.",
)
@click.option(
    "--filter",
    "rule_text",
    metavar="JSON",
    help='A JSONLogic rule over the row, e.g. \'{"in": ["chemistry", '
    '{"var": "content.tags"}]}\' (==, !=, <, >, <=, >=, in, and, or, !, var).',
)
@click.option(
    "--sort",
    "sort",
    multiple=True,
    metavar="FIELD[:desc]",
    help="Sort by a row field such as content.version:desc or quality:desc.",
)
@click.option("--limit", type=click.IntRange(min=1), metavar="N", help="At most N rows.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    types: str,
    rule_text: str | None,
    sort: tuple[str, ...],
    limit: int | None,
    as_json: bool,
    repo: Path | None,
) -> None:
    """List the skills and knowledge documents of your connected chain. A row has ref, type,
    name, home, owner, lifecycle, tier, path, version, hash, quality, description and content
    (the frontmatter); --filter and --sort read any of them by dotted path (content.KEY for a
    frontmatter field); a field a row does not have is refused."""
    from exobrain.cli.edge import parse_types
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate
    from exobrain.util.jsonlogic import parse_rule, parse_sort
    from exobrain.workspace import open_workspace

    chosen = parse_types(types)
    rule = parse_rule(rule_text) if rule_text is not None else None
    keys = parse_sort(sort)
    ws = open_workspace(repo)
    rows = Substrate(ws, signal_quality(ws)).list(chosen, rule, keys, limit)
    if as_json:
        emit_json(rows)
    elif not rows:
        click.echo("nothing matches")
    else:
        _table(rows)
    finish_read(ws)


def _table(rows: list[dict[str, Any]]) -> None:
    click.echo(
        plain_table(
            [
                [
                    r["ref"],
                    r["lifecycle"],
                    r["tier"],
                    str(r["version"] or "-"),
                    " ".join(r["description"].split())[:70],
                ]
                for r in rows
            ],
            ["REF", "LIFECYCLE", "TIER", "VERSION", "DESCRIPTION"],
        )
    )
