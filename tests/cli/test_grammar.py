"""The one command-line grammar of knowledge/exobrain/cli.md, checked on the click definition of
every command: each console script of pyproject.toml and every verb under it (the exobrain
umbrella's, ``exobrain signal``'s …), found by walking the groups, so a command added later is
held to the same rules without touching this file."""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from exobrain.cli.edge import ConsoleEntry
from exobrain.paths import CONSOLE_SCRIPTS
from exobrain_launcher import ENTRIES
from tests.support import ROOT

#: pyproject.toml's console scripts, each an entry of the launcher (exobrain_launcher)
LAUNCHED: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
    "scripts"
]
#: console script → the click command it starts (``module:attribute``)
SCRIPTS: dict[str, str] = ENTRIES

#: One concept, one metavar: a parameter of this name always shows this placeholder.
CONCEPTS = {
    "ref": "REF",
    "refs": "REF",
    "into": "SCOPE",
    "scope": "SCOPE",
    "scopes": "SCOPE",
    "all_scope": "SCOPE",
    "home": "HOME",
    "origin": "HOME",
    "agent": "AGENT",
    "agent_names": "AGENT",
    "person": "ID",
    "owner": "OWNER",
    "host": "HOST",
    "groups": "GROUP",
    "persona": "PERSONA",
    "personas": "PERSONA",
    "limit": "N",
}
#: Flags that mean "how many": the one name is --limit (-k stays as its alias).
HOW_MANY = {"-k", "-n", "--k", "--top", "--count", "--max", "--num", "--number"}


def _walk(path: str, command: click.Command) -> Iterator[tuple[str, click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        context = click.Context(command, info_name=path)
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None, f"{path} {name}"
            yield from _walk(f"{path} {name}", sub)


def _command(entry: click.Command | ConsoleEntry) -> click.Command:
    """The click command a console script runs (behind a :class:`ConsoleEntry`, if any)."""
    return entry.command if isinstance(entry, ConsoleEntry) else entry


def _commands() -> list[tuple[str, click.Command]]:
    found = []
    for script, target in sorted(SCRIPTS.items()):
        module, attribute = target.split(":")
        found += list(_walk(script, _command(getattr(importlib.import_module(module), attribute))))
    return found


COMMANDS = _commands()
LEAVES = [(path, c) for path, c in COMMANDS if not isinstance(c, click.Group)]
IDS = [path for path, _ in COMMANDS]
LEAF_IDS = [path for path, _ in LEAVES]


def invoke(path: str, *args: str):
    """Run ``path`` (a console script and its verbs) with ``args``, as the person types it."""
    script, *verbs = path.split()
    module, attribute = SCRIPTS[script].split(":")
    main = _command(getattr(importlib.import_module(module), attribute))
    return CliRunner().invoke(main, [*verbs, *args], prog_name=script)


def options(command: click.Command) -> dict[str, click.Option]:
    return {
        flag: p
        for p in command.params
        if isinstance(p, click.Option)
        for flag in (*p.opts, *p.secondary_opts)
    }


def test_every_console_script_is_walked_and_known():
    assert sorted(CONSOLE_SCRIPTS) == sorted(SCRIPTS) == sorted(LAUNCHED)
    assert {s: f"exobrain_launcher:{s.replace('-', '_')}" for s in ENTRIES} == LAUNCHED
    assert len(LEAVES) > 30  # the umbrella's verbs were found too


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_version_everywhere(path, command):
    assert "--version" in options(command), f"{path}: no --version"
    result = invoke(path, "--version")
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"\S+ \(exobrain-skills\) \d+\.\d+\.\d+\S*\n", result.output), result.output


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_help_ends_with_the_exit_codes(path, command):
    result = invoke(path, "--help")
    assert result.exit_code == 0, result.output
    assert invoke(path, "-h").output == result.output
    last = result.output.strip().split("\n\n")[-1]
    assert re.match(r"\s*Exit codes: 0 .+; 1 .+; 2 .+\.$", " ".join(last.split())), (path, last)


#: Commands whose whole output is a JSON protocol: a --json flag would change nothing.
SPEAKS_JSON_ALREADY = {"exobrain mcp"}  # JSON-RPC over stdout


@pytest.mark.parametrize("path, command", LEAVES, ids=LEAF_IDS)
def test_json_and_repo_on_every_command(path, command):
    found = options(command)
    if path not in SPEAKS_JSON_ALREADY:
        assert "--json" in found and found["--json"].is_flag, f"{path}: no --json"
    assert "--repo" in found, f"{path}: no --repo"


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_the_same_metavar_for_the_same_concept(path, command):
    for param in command.params:
        want = CONCEPTS.get(param.name or "")
        if want is None or (isinstance(param, click.Option) and param.is_flag):
            continue
        shown = param.metavar or (param.name or "").upper()
        assert shown.rstrip(".") == want, f"{path}: {param.name} shows {shown}, not {want}"


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_every_value_is_named(path, command):
    """An option that takes a value says what (never a bare TEXT, INTEGER or PATH)."""
    for param in command.params:
        if not isinstance(param, click.Option) or param.is_flag or param.count:
            continue
        if isinstance(param.type, click.Choice) or param.name in ("help", "version"):
            continue
        assert param.metavar, f"{path}: {param.opts[0]} has no metavar"


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_one_name_for_how_many(path, command):
    for flag, option in options(command).items():
        if flag in HOW_MANY:
            assert "--limit" in option.opts, f"{path}: {flag} is spelled --limit here"


# --- behaviours the grammar promises -----------------------------------------------------


@pytest.fixture
def small(tmp_path):
    from tests.support.helpers import exobrain

    return exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "tidy", "owner": "o", "tier": "optional", "force": True}]},
        skills={"global/tidy": None},
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["list", "--sort", "nosuchfield"], "--sort: 'nosuchfield' is not a field of a row"),
        (["list", "--sort", "name.first"], "--sort: 'name.first' is not a field of a row"),
        (["list", "--filter", '{"==": [{"var": "nope"}, 1]}'], "--filter: 'nope' is not a field"),
        (["list", "--filter", '{"like": [1, 1]}'], "unknown operator 'like'"),
        (["list", "--types", "skill,recipe"], "--types 'skill,recipe'"),
        (["search", "tidy", "--lifecycle", "retired"], "--lifecycle retired"),
        (["links", "skill:tidy", "--predicate", "likes"], "--predicate 'likes'"),
    ],
)
def test_unknown_sort_fields_and_filters_exit_2(small, args, message):
    result = invoke("exobrain", *args, "--repo", str(small))
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_known_fields_sort_and_filter(small):
    import json

    for args in (["--sort", "content.version:desc"], ["--sort", "quality:desc"]):
        result = invoke("exobrain", "list", "--json", *args, "--repo", str(small))
        assert result.exit_code == 0, result.output
    rule = '{"in": ["tidy", {"var": "content.description"}]}'
    result = invoke("exobrain", "list", "--json", "--filter", rule, "--repo", str(small))
    assert [row["name"] for row in json.loads(result.output)] == ["tidy"]


def test_limit_and_its_alias_agree(small):
    import json

    rows = {}
    for flag in ("--limit", "-k"):
        result = invoke(
            "exobrain", "search", "tidy", flag, "1", "--json", "--lexical", "--repo", str(small)
        )
        assert result.exit_code == 0, result.output
        rows[flag] = [h["ref"] for h in json.loads(result.output)["hits"]]
    assert rows["--limit"] == rows["-k"] == ["skill:tidy@global"]
    result = invoke(
        "exobrain",
        "discover",
        "--task",
        "tidy",
        "--json",
        "--limit",
        "1",
        "--lexical",
        "--repo",
        str(small),
    )
    assert result.exit_code == 0 and json.loads(result.output)["task"] == "tidy"


def test_the_progress_display_shows_on_a_terminal_only(monkeypatch):
    import io
    import sys

    from exobrain.cli.progress import progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with progress("building the index", total=3) as display:
        display.tick(1, 3, "skills/a")
    assert pipe.getvalue() == ""  # not a terminal: nothing at all
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress("building the index", total=3) as display:
        display.tick(2, 3, "skills/b")
    assert "building the index: skills/b" in terminal.getvalue()
    with progress("quiet", quiet=True) as display:  # --json: never
        display.tick(1, None, "x")
    assert "quiet" not in terminal.getvalue()
