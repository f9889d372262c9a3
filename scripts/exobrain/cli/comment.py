"""``exobrain comment REF TEXT [--reply-to ID]``: a word about a skill, in your ledger."""

from __future__ import annotations

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


@click.command(
    "comment",
    context_settings=HELP,
    epilog=exit_codes(
        ok="the comment was written",
        bad="an unknown skill or comment id, or a text the ledger refuses",
    ),
)
@click.argument("ref", metavar="REF")
@click.argument("text", metavar="TEXT")
@click.option("--reply-to", metavar="ID", help="The id of the comment this one answers.")
@click.option("--agent", metavar="AGENT", help="The agent that wrote it, if one did.")
@click.option(
    "--host",
    metavar="HOST",
    help="File it under this host (default: $EXOBRAIN_HOST, the connected host scope, "
    "else this machine's short hostname).",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    ref: str,
    text: str,
    reply_to: str | None,
    agent: str | None,
    host: str | None,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Comment on a skill (REF: skill:NAME[@HOME]), or answer a comment with --reply-to.

    The comment is a line in your ledger, signals/<person>/<host>.jsonl: commit it like any
    other file. `exobrain signals REF` and `exobrain show REF` list the thread.
    """
    from exobrain.agents import get_agent
    from exobrain.refs import canonical, parse_ref
    from exobrain.signals.discussion import post_comment
    from exobrain.signals.ledger import author, host_id
    from exobrain.workspace import find_declaration, open_workspace

    if agent:
        get_agent(agent)
    ws = open_workspace(repo)
    skill = canonical(find_declaration(ws, parse_ref(ref)))
    line, path, warning = post_comment(
        ws,
        skill,
        text,
        by=author(ws),
        host=host_id(ws, host),
        agent=agent,
        reply_to=reply_to,
    )
    if warning:
        echo_line(f"warning: {warning}", err=True)
    rel = path.relative_to(ws.root).as_posix()
    if as_json:
        emit_json({**line, "file": rel})
        return
    answer = f" in reply to {reply_to}" if reply_to else ""
    echo_line(f"recorded comment {line['id']} on {skill}{answer} by {line['by']} ({rel})")
