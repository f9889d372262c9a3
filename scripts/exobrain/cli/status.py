"""``skills-status``: the resolved registry for this connection, or (``--all``) the catalog."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    ConsoleEntry,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    keep_until_exit,
    plain_table,
    repo_option,
    report_findings,
    stdout_is_terminal,
    version_option,
)
from exobrain.model import TIERS
from exobrain.skillmd import one_line
from exobrain.util.terminal import safe_line

STATUS_HEADER = ["NAME", "SCOPE", "OWNER", "TIER", "DECLARED-BY", "DESCRIPTION"]


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="shown", bad="bad usage, or a skills.json is broken (its rows are left out)"
    ),
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Discovery catalog: every declaration in the repository (seed/ left out).",
)
@click.option("--agent", metavar="AGENT", help="Resolve for this agent (applies agent filters).")
@click.option("--tier", type=click.Choice(TIERS), help="Show only skills resolved to this tier.")
@json_option
@click.option("--plain", is_flag=True, help="Tab-separated rows without a header.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "prompt"]),
    default="table",
    help="'prompt' prints the <available_skills> block for the always skills.",
)
@version_option
@repo_option
@command_edge
def main(
    show_all: bool,
    agent: str | None,
    tier: str | None,
    as_json: bool,
    plain: bool,
    fmt: str,
    repo: Path | None,
) -> None:
    """Show which skills reach you here, at which tier, and why.

    Without options: the skills your connected scope chain resolves (deepest scope wins).
    With --all: every skill declared anywhere, to discover what you could opt into with
    skills-promote.
    """
    from exobrain.errors import UsageError
    from exobrain.workspace import open_workspace

    if sum([as_json, plain, fmt != "table"]) > 1:
        raise UsageError("choose one of --json, --plain and --format prompt")
    if show_all and fmt == "prompt":
        raise UsageError("--format prompt lists resolved skills; drop --all")
    if agent is not None:
        from exobrain.agents import get_agent

        get_agent(agent)
    ws = open_workspace(repo)
    keep_until_exit(ws)  # freed by nobody: the process ends (ConsoleEntry)
    if show_all:
        from exobrain.util.gcpause import paused_gc

        with paused_gc(for_good=True):  # every row stays alive until the end
            _show_catalog(ws, tier, as_json, plain)
    else:
        _show_status(ws, agent, tier, as_json, plain, fmt)
    report_findings(ws.findings)
    sys.exit(2 if ws.has_bad_input else 0)


def _connection_line(ws) -> str:
    if ws.connection.is_guest:
        return "guest: global only"
    leaves = ", ".join(ws.connection.connected_scopes)
    ids = ", ".join(sorted(ws.my_ids)) or "-"
    return safe_line(f"connected: {leaves} (as {ids})")


def _show_status(ws, agent, tier, as_json, plain, fmt) -> None:
    from exobrain.catalog.status import prompt_block, status_rows

    skills = ws.resolve(agent)
    rows = status_rows(skills, ws, tier, everything=as_json)
    if as_json:
        emit_json(
            {
                "connected_scopes": ws.connection.connected_scopes,
                "chain": ws.chain.paths,
                "self_ids": sorted(ws.my_ids),
                "agent": agent,
                "skills": [r.as_json() for r in rows],
            }
        )
        return
    if fmt == "prompt":
        click.echo(
            prompt_block(
                ws, [r for r in rows if r.skill.tier == "always" and not r.skill.is_external]
            )
        )
        return
    cells = [
        [
            safe_line(cell)
            for cell in (
                r.skill.name,
                r.scope + (" (external)" if r.skill.is_external else ""),
                r.skill.owner or "-",
                r.skill.tier + (f" ({r.why})" if r.why else ""),
                r.skill.declared_by,
                one_line(r.description, 80),
            )
        ]
        for r in rows
    ]
    if plain:
        for row in cells:
            click.echo("\t".join(row))
        return
    counts = {t: sum(1 for s in skills if s.tier == t) for t in TIERS}
    totals = "  ".join(f"{t}: {n}" for t, n in counts.items())
    hidden = len(skills) - len(rows)
    if hidden and tier is None:
        totals += f"  ({hidden} off by default not shown: --tier off lists them)"
    _render(STATUS_HEADER, cells, title=_connection_line(ws), footer=totals)


def _show_catalog(ws, tier, as_json, plain) -> None:
    """The catalog: a rich table on a terminal (made every time), else the printed text of
    :func:`exobrain.catalog.answer.printed_catalog` (memo, patch or full render)."""
    from exobrain.catalog.text import HEADER, JSON, PLAIN, TABLE, TITLE, cells, footer
    from exobrain.cli.progress import progress_display

    if stdout_is_terminal() and not (as_json or plain):
        from exobrain.catalog.rows import catalog_rows

        with progress_display() as progress:  # the first read of a big repository from git
            ws.sparse.progress = progress
            rows = catalog_rows(ws, tier)
        ws.sparse.progress = None
        _render(list(HEADER), [cells(r) for r in rows], title=TITLE, footer=footer(len(rows)))
        return
    from exobrain.catalog.answer import printed_catalog

    with progress_display() as progress:
        text = printed_catalog(ws, JSON if as_json else PLAIN if plain else TABLE, tier, progress)
    _write_utf8(text)


def _write_utf8(pieces: list[bytes | memoryview]) -> None:
    """Print UTF-8 text given in pieces, and a newline: as they are when the output is UTF-8,
    else through click (which encodes for the output)."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    if encoding == "utf8":
        sys.stdout.flush()
        for piece in [*pieces, b"\n"]:
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
    else:
        click.echo(b"".join(pieces).decode("utf-8", "surrogateescape"))


def _render(header: list[str], cells: list[list[str]], *, title: str, footer: str) -> None:
    """A rich table on a terminal, aligned plain text otherwise. The cells come shown
    through :func:`~exobrain.util.terminal.safe_line` already (rich passes ESC, C1 and bidi
    controls through), and go in as ``Text``, so a ``[markup]`` in them is shown, not
    applied."""
    if not stdout_is_terminal():
        click.echo(title)
        if cells:
            click.echo(plain_table(cells, header))
        click.echo(footer)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left", header_style="bold")
    for column in header:
        table.add_column(
            column,
            overflow="fold" if column == "DESCRIPTION" else "ellipsis",
            no_wrap=column != "DESCRIPTION",
        )
    for row in cells:
        table.add_row(*(Text(cell) for cell in row))
    console = Console()
    console.print(table)
    console.print(footer, style="dim", highlight=False)


#: The console script (pyproject.toml): ends the process without freeing the workspace.
run = ConsoleEntry(main)
