"""``exobrain search QUERY``: ranked skills (and knowledge) for a text, from what you can see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    limit_option,
    parse_lifecycles,
    parse_types,
    repo_option,
    report_notes,
    split_list,
    stdout_is_terminal,
    version_option,
)
from exobrain.util.terminal import safe_line


@click.command(
    "search",
    context_settings=HELP,
    epilog=exit_codes(bad="bad usage (an unknown type or lifecycle) or a bad input file"),
)
@click.argument("query", metavar="QUERY", nargs=-1, required=True)
@click.option(
    "--types",
    "types",
    default="skill",
    show_default=True,
    metavar="T[,T]",
    help="Artifact types: skill, knowledge.",
)
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Keep artifacts with this tag.")
@click.option(
    "--persona",
    "personas",
    multiple=True,
    metavar="PERSONA",
    help="Keep artifacts with this persona (or tag).",
)
@click.option(
    "--lifecycle",
    "lifecycles",
    multiple=True,
    metavar="L[,L]",
    help="Only these lifecycles (default: all but archived).",
)
@click.option(
    "--all-scopes",
    "everywhere",
    is_flag=True,
    help="Search every scope (what skills-status --all lists), not only your connected chain.",
)
@limit_option(10, "hits")
@click.option("--lexical", is_flag=True, help="Lexical (BM25) ranking only.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also list the closest hits below the relevance floor, marked as such.",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    query: tuple[str, ...],
    types: str,
    tags: tuple[str, ...],
    personas: tuple[str, ...],
    lifecycles: tuple[str, ...],
    everywhere: bool,
    limit: int,
    lexical: bool,
    show_all: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Rank the skills your connection can see for QUERY: BM25 and meaning (the encoders of
    the [semantic] extra) fused, times quality, times lifecycle (deprecated lower, archived
    only with --lifecycle archived). Each hit shows its home, its tier for you, the score
    components and, when it is not on for you, how to opt in. The first search of a
    repository builds its index (a progress display on a terminal)."""
    from exobrain.cli.progress import progress_display
    from exobrain.search.engine import Filters, search, signal_quality
    from exobrain.search.hits import hit_json
    from exobrain.workspace import open_workspace

    filters = Filters(
        types=parse_types(types),
        tags=split_list(tags),
        personas=split_list(personas),
        lifecycles=parse_lifecycles(lifecycles),
        everywhere=everywhere,
    )
    ws = open_workspace(repo)
    text = " ".join(query)
    with progress_display() as progress:
        result = search(
            ws,
            text,
            filters,
            k=limit,
            semantic=not lexical,
            quality=signal_quality(ws),
            progress=progress,
        )
    report_notes(result.notes)
    if as_json:
        emit_json(
            {
                "query": text,
                "mode": result.mode,
                "encoders": result.encoders,
                "pending": result.pending,
                "scopes": "all-scopes" if everywhere else "chain",
                "considered": result.considered,
                "notes": result.notes,
                "hits": [hit_json(h) for h in result.hits],
                "floor": result.floor,
                **({"below_floor": [hit_json(h) for h in result.below]} if show_all else {}),
            }
        )
    else:
        if not result.hits:
            click.echo(_nothing_fits(result, everywhere, show_all))
        _print_hits(result.hits)
        if show_all and result.below:
            click.echo(f"below the relevance floor ({len(result.below)}):")
            _print_hits(result.below, start=len(result.hits) + 1)
    finish_read(ws, found=bool(result.hits))


def _nothing_fits(result: Any, everywhere: bool, show_all: bool) -> str:
    """The line for a query no visible artifact matches well."""
    closest = f"; {len(result.below)} closest below the floor" if result.below else ""
    hint = "" if show_all or not result.below else " (--all lists them)"
    scope = "" if everywhere else "; --all-scopes searches every scope"
    return f"nothing matched well among {result.considered} visible artifacts{closest}{hint}{scope}"


def _print_hits(hits: list[Any], start: int = 1) -> None:
    from exobrain.search.hits import hit_json

    bold = stdout_is_terminal()
    for number, hit in enumerate(hits, start):
        data = hit_json(hit)
        c = data["components"]
        parts = [f"bm25 {c['bm25']:.2f}" if c["bm25"] is not None else "no word match"]
        parts += [f"{role} {cosine:.2f}" for role, cosine in c["cosines"].items()]
        parts += [f"quality {c['quality']:.2f}", data["lifecycle"]]
        # the hit's text came from files: through the output filter, and styled after it
        name = safe_line(data["name"])
        head = click.style(name, bold=True) if bold else name
        tier = f"tier {data['tier']}" if data["type"] == "skill" else data["type"]
        if data.get("reach") == "outside":
            tier += " (outside your chain)"
        rest = f"  {data['home']}  {tier}  score {data['score']:.3f} ({', '.join(parts)})"
        click.echo(f"{number:2}. {head}{safe_line(rest)}")
        if data["description"]:
            echo_line(f"    {data['description']}")
        if data.get("opt_in"):
            echo_line(f"    opt in: {data['opt_in']}")
        if data.get("same_content"):
            echo_line(f"    same content as: {', '.join(data['same_content'])}")
