"""``exobrain trust [PATH…]``: which of a repository's executables this machine runs."""

from __future__ import annotations

import sys
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
    "trust",
    context_settings=HELP,
    epilog=exit_codes(
        ok="trusted, forgotten or listed (without PATH: no scope hook is waiting for trust)",
        failed="without PATH: scope hooks of your chain are not trusted here",
        bad="bad usage (a PATH that is not a file, --list with PATH)",
    ),
)
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option("--list", "show_list", is_flag=True, help="List every file trusted here.")
@click.option("--remove", is_flag=True, help="Forget the trust of PATH….")
@version_option
@json_option
@repo_option
@command_edge
def command(
    paths: tuple[Path, ...], show_list: bool, remove: bool, as_json: bool, repo: Path | None
) -> None:
    """Trust the exact content of each PATH (a scope hook such as
    groups/acme/scripts/connect-agent) so that connect-agent runs it on this machine. Review a
    file before you trust it: a changed file is not run again until trusted again.

    Without PATH: the scope hooks of your connected chain that this machine does not trust
    (exit 1 when there are any). --list: every trusted file; --remove PATH…: forget them.
    Trust lives outside every repository, in $XDG_CONFIG_HOME/exobrain/trust.json.
    """
    from exobrain.connect import trust
    from exobrain.errors import UsageError

    if show_list and (paths or remove):
        raise UsageError("--list takes no PATH and no --remove")
    if remove and not paths:
        raise UsageError("--remove needs the PATH of each file to forget")
    if show_list:
        _list(trust, as_json)
    elif remove:
        _remove(trust, paths, as_json)
    elif paths:
        _trust(trust, _located(paths, repo), as_json)
    else:
        _pending(trust, as_json, repo)


def _trust(trust, paths: list[Path], as_json: bool) -> None:
    done = trust.trust(paths)
    if as_json:
        emit_json([{"path": str(p), "sha256": d, "before": before} for p, d, before in done])
        return
    note = {"new": "", "changed": " (its content changed since)", "trusted": " (again)"}
    for path, digest, before in done:
        echo_line(f"trusted  {path}  sha256:{digest[:16]}…{note[before]}")


def _remove(trust, paths: tuple[Path, ...], as_json: bool) -> None:
    done = trust.untrust(list(paths))
    if as_json:
        emit_json([{"path": str(p), "was_trusted": was} for p, was in done])
        return
    for path, was in done:
        echo_line(f"{'untrusted' if was else 'was not trusted'}  {path}")


def _located(paths: tuple[Path, ...], repo: Path | None) -> list[Path]:
    """Each PATH as given, or — when it does not exist from here — inside the repository (the
    paths connect-agent prints are relative to the repository's root)."""
    from exobrain.errors import UsageError
    from exobrain.workspace import exobrain_root

    found = []
    for path in paths:
        if not path.exists() and not path.is_absolute():
            try:
                inside = exobrain_root(repo) / path
            except UsageError:
                inside = path
            path = inside if inside.exists() else path
        found.append(path)
    return found


def _list(trust, as_json: bool) -> None:
    records = list(trust.load_trust().values())
    rows = [(r, trust.state_of(Path(r.path), {r.path: r})) for r in records]
    if as_json:
        emit_json([{**r.as_json(), "now": state} for r, state in rows])
        return
    for record, state in rows:
        now = {"trusted": "", "changed": "  (changed since: not run)", "missing": "  (gone)"}
        echo_line(f"{record.trusted_at}  {record.path}{now.get(state, '')}")
    click.echo(f"{len(rows)} trusted file(s) in {trust.trust_file()}")


def _pending(trust, as_json: bool, repo: Path | None) -> None:
    from exobrain.connect.scopehooks import find_hooks
    from exobrain.paths import shown
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    warnings: list[str] = []
    hooks = find_hooks(ws.root, ws.chain.scopes, None, trust.load_trust_or_warn(warnings))
    pending = [h for h in hooks if not h.trusted]
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        emit_json(
            [{"path": shown(h.path, ws.root), "scope": h.scope, "trust": h.trust} for h in hooks]
        )
    else:
        for hook in pending:
            path = shown(hook.path, ws.root)
            # a scope's folder name is anyone's text: each line through the output filter
            echo_line(f"{hook.trust:8} {path}")
            echo_line(f"         {trust.review_hint(path)}")
        click.echo(
            f"{len(hooks) - len(pending)} of {len(hooks)} scope hook(s) of your chain trusted"
        )
    sys.exit(1 if pending else 0)
