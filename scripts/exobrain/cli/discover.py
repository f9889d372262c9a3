"""``exobrain discover --task TEXT``: the top skills for a task, ready for an agent's context."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    limit_option,
    repo_option,
    report_notes,
    version_option,
)


@click.command("discover", context_settings=HELP, epilog=exit_codes())
@click.option("--task", required=True, metavar="TEXT", help="What the agent is about to do.")
@click.option("--persona", metavar="PERSONA", help="Keep skills for this persona (or without any).")
@limit_option(5, "skills")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "json", "prompt"]),
    default="md",
    show_default=True,
    help="Markdown, JSON (the same as --json), or the <available_skills> block.",
)
@click.option("--lexical", is_flag=True, help="Lexical (BM25) ranking only.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    task: str,
    persona: str | None,
    limit: int,
    fmt: str,
    lexical: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Rank the skills you can see for the task text the way search does, keep those whose
    triggers match it, that fit the persona and whose dependencies resolve, and print the top
    N. Missing tools are flagged, not filtered."""
    from exobrain.cli.progress import progress_display
    from exobrain.errors import UsageError
    from exobrain.search.discover import discover, render_markdown, render_prompt
    from exobrain.search.engine import signal_quality
    from exobrain.workspace import open_workspace

    if as_json and fmt not in ("md", "json"):
        raise UsageError(f"choose one of --json and --format {fmt}")
    ws = open_workspace(repo)
    with progress_display() as progress:
        result = discover(
            ws,
            task,
            persona=persona,
            k=limit,
            semantic=not lexical,
            quality=signal_quality(ws),
            progress=progress,
        )
    report_notes(result.notes)
    if as_json or fmt == "json":
        emit_json(
            {
                "task": task,
                "persona": persona,
                "mode": result.mode,
                "encoders": result.encoders,
                "skills": [p.as_json() for p in result.picks],
                "excluded": result.excluded,
                "notes": result.notes,
            }
        )
    elif fmt == "prompt":
        click.echo(render_prompt(result), nl=False)
    else:
        click.echo(render_markdown(result), nl=False)
    finish_read(ws)
