"""What every command shares: the one place where domain errors become messages and exit codes,
and the pieces of the one command-line grammar (knowledge/exobrain/cli.md).

Library code raises :class:`~exobrain.errors.ExobrainError`; :func:`command_edge` prints it as
``error: …`` on stderr and exits with its code, so no user ever sees a traceback for a
problem they can fix. Every command takes ``-h/--help`` (:data:`HELP`), ``--version``
(:func:`version_option`), ``--repo`` and, when it prints data, ``--json``; its help ends with
its exit codes (:func:`exit_codes`). tests/cli/test_grammar.py walks every command and holds
them to it.
"""

from __future__ import annotations

import atexit
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from exobrain.errors import ExobrainError, denied
from exobrain.findings import Finding
from exobrain.util.terminal import json_text, safe_line, safe_text

if TYPE_CHECKING:
    from exobrain.workspace import Workspace


def command_edge(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a click callback: ExobrainError → message + exit code (a PermissionError too:
    :func:`exobrain.errors.denied`); Ctrl-C → 130; the caches found damaged on the way are one
    ``warning:`` line each, at the end."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ExobrainError as exc:
            click.echo(f"error: {safe_text(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except PermissionError as exc:  # a file or folder this user may not open, met anywhere
            error = denied(exc)
            click.echo(f"error: {error}", err=True)
            sys.exit(error.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        finally:
            committed = sys.modules.get("exobrain.sparse.committed")
            if committed is not None:  # only loaded when git's objects were read
                committed.close_all()
            caches = sys.modules.get("exobrain.caches")
            for note in caches.take_damaged() if caches is not None else ():
                click.echo(f"warning: {note}", err=True)  # a damaged cache: never the exit code

    return wrapper


#: What commands keep for the end of the process (see :class:`ConsoleEntry`).
_KEPT: list[Any] = []


def keep_until_exit(value: Any) -> None:
    """Keep ``value`` alive to the end of the process, which :class:`ConsoleEntry` reaches
    without freeing it: the workspace of a repository of 100,000 people holds millions of
    objects, and freeing them one by one when the command returns costs about half a second
    for nothing."""
    _KEPT.append(value)


class ConsoleEntry:
    """The console-script entry of a click command: click's standalone run, then the exit
    handlers and a flush of stdout and stderr, then ``os._exit``, which skips freeing what
    the command built (mypy ends the same way). In-process callers (tests, ``CliRunner``)
    call :attr:`command` itself and get the ordinary exit."""

    def __init__(self, command: click.Command) -> None:
        self.command = command

    def __call__(self) -> NoReturn:
        try:
            self.command.main()
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        atexit._run_exitfuncs()  # what a normal exit runs (temporary folders, finalizers)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be said there
                code = code or 1
        os._exit(code)


repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="The exobrain to use (default: the git repository around the current folder).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def limit_option(default: int, what: str) -> Callable[[Callable[..., Any]], Any]:
    """``--limit N`` (``-k`` kept as its alias): the grammar's one name for "how many"."""
    return click.option(
        "--limit",
        "-k",
        "limit",
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        metavar="N",
        help=f"How many {what}.",
    )


#: The help options of every command.
HELP = {"help_option_names": ["-h", "--help"]}
#: The distribution whose version ``--version`` prints.
DISTRIBUTION = "exobrain-skills"
FAILED = "an operation failed (a git call, a lock that timed out)"
BAD_INPUT = "bad usage or a bad input file (nothing was changed)"


def version_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--version``: the installed toolkit's version, the same on every command."""
    return click.version_option(
        package_name=DISTRIBUTION, message="%(prog)s (exobrain-skills) %(version)s"
    )(func)


def exit_codes(ok: str = "done", failed: str = FAILED, bad: str = BAD_INPUT, more: str = "") -> str:
    """The last paragraph of a command's help: what each exit code means for it (``more``:
    the codes past 2 of the few commands that have them, e.g. ``"3 review needed"``)."""
    return f"Exit codes: 0 {ok}; 1 {failed}; 2 {bad}{'; ' + more if more else ''}."


def emit_json(data: Any) -> None:
    """``--json``: the data as JSON, with no raw control or bidi character in its strings
    (they are ``\\uXXXX`` escapes: the same data, nothing a terminal acts on)."""
    click.echo(json_text(data))


def echo_line(line: str, *, err: bool = False) -> None:
    """Print one line that holds text from files (frontmatter, registries, ledgers, folder
    names) through the one output filter: the line is one line by design, so a newline,
    a control or a bidi character in a value is shown escaped
    (:func:`~exobrain.util.terminal.safe_line`)."""
    click.echo(safe_line(line), err=err)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def report_findings(findings: Iterable[Finding]) -> None:
    """Warnings and errors about input files, on stderr, one line each."""
    for finding in findings:
        click.echo(finding.render(), err=True)


def report_notes(notes: Iterable[str]) -> None:
    """What an answer covered (e.g. the part of a sparse checkout read from git), on stderr."""
    for note in notes:
        click.echo(f"note: {safe_text(note)}", err=True)


def finish_read(ws: Workspace, *, found: bool = True) -> NoReturn:
    """End a read command: the problems met in the files it read go to stderr, and a broken
    input it depended on (a registry of the chain, the connection file) makes it exit 2 —
    after its output, so what could be read is still shown; else 1 when nothing was
    ``found`` (as grep does), 0 otherwise."""
    report_findings(ws.findings)
    sys.exit(2 if ws.has_bad_input else 0 if found else 1)


def plain_table(rows: list[list[str]], header: list[str]) -> str:
    """Space-aligned columns for non-terminal output (no colour, no box drawing); every
    cell shown through :func:`~exobrain.util.terminal.safe_line` before the columns are
    measured, so what came from a file can neither act on the terminal nor break a row."""
    table = [header, *([safe_line(cell) for cell in row] for row in rows)]
    widths = [max(map(len, column)) for column in zip(*table, strict=True)]
    line = "  ".join(f"{{:<{width}}}" for width in widths)  # one format per row: fast at scale
    return "\n".join(line.format(*row).rstrip() for row in table)


def split_list(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--x a,b --x c`` → (a, b, c)."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def parse_types(text: str) -> tuple[str, ...]:
    from exobrain.errors import UsageError
    from exobrain.search.corpus import TYPES

    types = split_list((text,))
    unknown = [t for t in types if t not in TYPES]
    if unknown or not types:
        raise UsageError(f"--types {text!r}: use one or more of {', '.join(TYPES)}")
    return types


def parse_lifecycles(values: tuple[str, ...]) -> tuple[str, ...] | None:
    from exobrain.errors import UsageError
    from exobrain.search.ranking import LIFECYCLES

    chosen = split_list(values)
    unknown = [v for v in chosen if v not in LIFECYCLES]
    if unknown:
        raise UsageError(f"--lifecycle {', '.join(unknown)}: use {', '.join(LIFECYCLES)}")
    return chosen or None
