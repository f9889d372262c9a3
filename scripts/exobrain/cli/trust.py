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
        failed="without PATH: scope hooks of your chain are not trusted here; --suite --check: "
        "the suite is not trusted as it is",
        bad="bad usage (a PATH that is not a file, --list with PATH)",
    ),
)
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option("--list", "show_list", is_flag=True, help="List every file and suite trusted here.")
@click.option("--remove", is_flag=True, help="Forget the trust of PATH… (or of the --suite).")
@click.option(
    "--suite",
    is_flag=True,
    help="Trust this repository's test suite as it is now, so exobrain selftest runs it.",
)
@click.option(
    "--check",
    is_flag=True,
    help="With --suite: only say whether the suite is trusted as it is now (exit 1 if not).",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    paths: tuple[Path, ...],
    show_list: bool,
    remove: bool,
    suite: bool,
    check: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Trust the exact content of each PATH (a scope hook such as
    groups/acme/scripts/connect-agent) so that connect-agent runs it on this machine. Review a
    file before you trust it: a changed file is not run again until trusted again.

    --suite: trust the repository's test suite (its tests, conftest files, scripts/ and the
    files at the root, as they are now) so that exobrain selftest runs it; read what changed
    first. Without PATH: the scope hooks of your connected chain that this machine does not
    trust (exit 1 when there are any). --list: every trusted file and suite; --remove PATH…
    (or --remove --suite): forget them. Trust lives outside every repository, in
    $XDG_CONFIG_HOME/exobrain/trust.json.
    """
    from exobrain.connect import trust
    from exobrain.errors import UsageError

    if show_list and (paths or remove or suite):
        raise UsageError("--list takes no PATH, --remove or --suite")
    if suite and paths:
        raise UsageError("--suite takes no PATH: it is the whole suite of --repo")
    if check and (not suite or remove):
        raise UsageError("--check goes with --suite alone")
    if remove and not paths and not suite:
        raise UsageError("--remove needs the PATH of each file to forget (or --suite)")
    if show_list:
        _list(trust, as_json)
    elif suite:
        _suite(trust, remove, check, as_json, repo)
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
    suites = list(trust.load_suites().values())
    if as_json:
        emit_json(
            [{**r.as_json(), "now": state} for r, state in rows]
            + [{**s.as_json(), "suite": True} for s in suites]
        )
        return
    for record, state in rows:
        now = {"trusted": "", "changed": "  (changed since: not run)", "missing": "  (gone)"}
        echo_line(f"{record.trusted_at}  {record.path}{now.get(state, '')}")
    for suite in suites:
        echo_line(f"{suite.trusted_at}  {suite.root}  (its test suite)")
    click.echo(
        f"{len(rows)} trusted file(s) and {len(suites)} test suite(s) in {trust.trust_file()}"
    )


def _suite(trust, remove: bool, check: bool, as_json: bool, repo: Path | None) -> None:
    """Trust (forget, or with ``check`` judge) the test suite of the repository as it is on
    disk now."""
    from exobrain.errors import UsageError
    from exobrain.instance import suitetrust
    from exobrain.workspace import exobrain_root

    root = exobrain_root(repo)
    if remove:
        was = trust.untrust_suite(root)
        if as_json:
            emit_json({"repository": str(root), "was_trusted": was})
        else:
            echo_line(f"{'untrusted' if was else 'was not trusted'}  the test suite of {root}")
        return
    suite = suitetrust.current_suite(root)
    if suite.problem is not None:
        raise UsageError(
            f"the test suite of {root} cannot be trusted: {suite.problem}",
            hint="remove the link, or point it at a file inside the repository",
        )
    before, _ = suitetrust.trust_state(suite)
    if check:
        if as_json:
            emit_json({"repository": str(suite.root), "trust": before})
        else:
            echo_line(f"{before}  the test suite of {suite.root}")
        sys.exit(0 if before == suitetrust.TRUSTED else 1)
    record = trust.trust_suite(suite.root, suite.digest, suitetrust.head_commit(suite.root))
    if as_json:
        emit_json({**record.as_json(), "files": suite.files, "paths": list(suite.paths)})
        return
    note = {"new": "", "changed": " (it changed since)", "trusted": " (again)"}[before]
    echo_line(
        f"trusted  the test suite of {suite.root}: {suite.files} file(s) under "
        f"{', '.join(suite.paths)} and the root, sha256:{suite.digest[:16]}…{note}"
    )


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
