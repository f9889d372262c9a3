"""``exobrain site -o DIR``: a static, self-contained web catalog of the skills."""

from __future__ import annotations

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
    repo_option,
    version_option,
)


@click.command(
    "site",
    context_settings=HELP,
    epilog=exit_codes(
        ok="the site was written",
        bad="the output folder holds files exobrain site did not write (or a manifest it "
        "refuses) and --force was not given, or a file of the repository is broken",
    ),
)
@click.option(
    "-o",
    "--out",
    "out",
    required=True,
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder to write: new, empty, or an earlier build (its manifest .exobrain-site says "
    "which files are the site's; nothing else in DIR is touched).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Write into a folder without a valid manifest too (a gh-pages checkout made by "
    "hand), or over files the site did not write: files are added and overwritten, never "
    "deleted.",
)
@click.option(
    "--all-scopes",
    is_flag=True,
    help="Every scope skills-status --all lists, personal ones included (default: the shared "
    "scopes: global, seed, groups, teams).",
)
@click.option(
    "--import-from",
    metavar="OWNER/REPO",
    default="",
    help="Where the repository is published, for the import command each skill page shows.",
)
@click.option(
    "--title",
    metavar="TEXT",
    default=None,
    help="The site's title (default: the repository's name, from its origin remote, then "
    '"skills").',
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    out: Path,
    force: bool,
    all_scopes: bool,
    import_from: str,
    title: str | None,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Write a catalog site: a searchable, filterable table of the skills, a page per skill
    (SKILL.md rendered, files, lock state, declarations, links, signals, commands) and a page
    per scope. No server, no CDN: open DIR/index.html, or publish DIR on any static host."""
    from exobrain.cli.progress import progress_display
    from exobrain.site.build import build_site
    from exobrain.site.gather import gather
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    with progress_display() as show:  # on stderr, on a terminal only: --json stays clean
        data = gather(
            ws, everything=all_scopes, import_from=import_from, title=title, progress=show
        )
        update = build_site(data, out, force=force, progress=show)
    if as_json:
        emit_json(
            {
                "out": str(out),
                "skills": len(data["skills"]),
                "scopes": len(data["scopes"]),
                **update.as_json(),
            }
        )
    else:
        echo_line(
            f"wrote {len(update.files)} files ({len(data['skills'])} skills, "
            f"{len(data['scopes'])} scopes) to {out}; open {out / 'index.html'}"
        )
        for line in update.report_lines():
            click.echo(line)
    finish_read(ws)
