"""Property-based fuzz of every reader of a file someone else may have written: whatever the
bytes, a reader returns or raises the toolkit's own error (a message and exit code 1 or 2 at the
command line) — never another exception, which would be a traceback.

Each reader gets a few hundred examples mixing near-valid documents, arbitrary JSON and hostile
texts (deep nesting, huge numbers, NaN, broken syntax); the counts are in EXAMPLES.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exobrain.artifacts.lockfile import read_lock
from exobrain.artifacts.specrules import spec_problems
from exobrain.cli.umbrella import main as exobrain_main
from exobrain.cli.validate import main as validate_main
from exobrain.connect.trust import load_trust
from exobrain.errors import ExobrainError
from exobrain.gate.crons import load_crons
from exobrain.registry.entries import load_registry
from exobrain.scopes import load_scope_config, read_connection
from exobrain.signals.lines import parse_line
from exobrain.signals.quality import load_weights, quality_all
from exobrain.skillmd import parse, powers
from exobrain.util.jsonlogic import evaluate, parse_rule
from tests.support.helpers import exobrain
from tests.support.signal_helpers import every_ledger

#: Examples per reader (the total is what the closing note reports).
EXAMPLES = 250
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,  # the same examples every run; nothing written into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["always", "global", "skill:a@global", "2026-01-01T00:00:00.000Z", "a\n"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
HOSTILE = [
    "[" * 200_000 + "]" * 200_000,
    '{"a": ' + "9" * 5000 + "}",
    '{"a": NaN}',
    '{"a": -Infinity}',
    '{"a": 1e999}',
    '{"a": 1e308}',
    "null",
    "[]",
    '"text"',
    "",
    "{",
    "\x00",
    '{"skills": [' + "{" * 100 + "}" * 100 + "]}",
]


def near(keys: list[str]) -> st.SearchStrategy[dict]:
    """Objects with the keys a reader expects (some of them) and any values."""
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys))


def documents(shape: st.SearchStrategy) -> st.SearchStrategy[str]:
    """Text: a near-valid document, any JSON, a hostile text or a cut or spliced one."""
    as_text = st.one_of(shape, values).map(json.dumps)
    return st.one_of(
        as_text,
        as_text,
        st.sampled_from(HOSTILE),
        st.tuples(as_text, st.integers(0, 60)).map(lambda t: t[0][: t[1]]),
        st.tuples(as_text, st.sampled_from(HOSTILE)).map(lambda t: t[0][:-1] + t[1]),
        st.text(max_size=40),
    )


ENTRY_KEYS = ["name", "owner", "tier", "from", "force", "source", "agent", "skipAgents",
              "lifecycle", "notes", "reviewed_by", "reviewed_at"]  # fmt: skip
registries = st.fixed_dictionaries(
    {"skills": st.lists(near(ENTRY_KEYS), max_size=4)},
    optional={"policy": near(["agent_hooks", "tool_wildcards"]), "$schema": values},
)
locks = st.fixed_dictionaries(
    {"skills": st.dictionaries(st.text(max_size=6), near(["version", "hash", "files"]))}
)
crons = st.fixed_dictionaries(
    {"jobs": st.lists(near(["name", "schedule", "command", "skill"]), max_size=3)}
)
scope_files = st.fixed_dictionaries({"collections": st.lists(near(["folder", "type"]), max_size=3)})
connections = near(["connected_scopes", "person", "agents", "external_skills", "user_agents"])
weights = near(["half_life_days", "weights", "priors", "sweep", "compaction", "search"])
trust_files = st.fixed_dictionaries(
    {"version": st.sampled_from([1, 2, "1"]), "files": st.dictionaries(st.text(), values)}
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return exobrain(
        tmp_path_factory.mktemp("fuzz") / "exo",
        registries={"global": [{"name": "hello", "owner": "al", "tier": "optional"}]},
        scopes=["people/al"],
        skills={"global/hello": None},
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )


def refused_or_fine(call) -> None:
    """The call returns, or raises the toolkit's own error with a message."""
    try:
        call()
    except ExobrainError as exc:
        assert str(exc).strip()


def cli_ok(command, args: list[str], root: Path) -> None:
    """A command ends with exit 0, 1 or 2 and no exception but its own exit."""
    result = CliRunner().invoke(command, [*args, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1, 2), result.output


@FUZZ
@given(text=documents(registries))
def test_registry_reader(repo, text):
    (repo / "people/al/skills.json").write_text(text, encoding="utf-8")
    load_registry(repo, "people/al")  # never raises: problems travel as findings
    cli_ok(validate_main, [], repo)


@FUZZ
@given(text=documents(locks))
def test_lock_reader(repo, text):
    (repo / "skills.lock.json").write_text(text, encoding="utf-8")
    refused_or_fine(lambda: read_lock(repo, "global"))
    cli_ok(exobrain_main, ["lock", "--check"], repo)


@FUZZ
@given(text=documents(crons))
def test_crons_reader(repo, text):
    (repo / "crons.json").write_text(text, encoding="utf-8")
    refused_or_fine(lambda: load_crons(repo))
    cli_ok(exobrain_main, ["crons", "--crontab"], repo)


@FUZZ
@given(text=documents(scope_files))
def test_scopes_reader(repo, text):
    path = repo / "scopes.json"
    path.write_text(text, encoding="utf-8")
    try:
        refused_or_fine(lambda: load_scope_config(repo))
    finally:
        path.unlink()


@FUZZ
@given(text=documents(connections))
def test_connection_reader(repo, text):
    path = repo / ".exobrain.json"
    original = path.read_text()
    path.write_text(text, encoding="utf-8")
    try:
        refused_or_fine(lambda: read_connection(repo))
    finally:
        path.write_text(original)


@FUZZ
@given(text=documents(weights))
def test_weights_reader(repo, text):
    path = repo / "signals/weights.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    try:
        refused_or_fine(
            lambda: quality_all(
                every_ledger(repo), ["skill:hello@global"], load_weights(repo), time.time()
            )
        )
    finally:
        path.unlink()


@FUZZ
@given(text=documents(trust_files))
def test_trust_file_reader(isolated_home, text):
    path = isolated_home / ".config/exobrain/trust.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    refused_or_fine(load_trust)


frontmatter_keys = ["name", "description", "version", "links", "dependencies", "hooks",
                    "allowed-tools", "metadata", "tags", "triggers"]  # fmt: skip
yaml_lines = st.one_of(
    st.tuples(st.sampled_from(frontmatter_keys), values).map(
        lambda kv: f"{kv[0]}: {json.dumps(kv[1])}"
    ),
    st.sampled_from(
        [
            "a: &x [1, 2]",
            "b: [*x, *x]",
            "c: " + "[" * 70 + "]" * 70,
            "d: " + "9" * 5000,
            "e: .nan",
            "f: !!python/object {}",
            "- item",
            "  indented: 1",
            "g: {h: *x}",
        ]
    ),
    st.text(max_size=30),
)


@FUZZ
@given(lines=st.lists(yaml_lines, max_size=8), body=st.text(max_size=30))
def test_frontmatter_reader(lines, body):
    text = "---\n" + "\n".join(lines) + "\n---\n" + body

    def read() -> None:
        doc = parse(text, Path("SKILL.md"))
        spec_problems(doc.meta, "hello")
        powers(doc.meta)
        json.dumps(doc.meta, default=str)

    refused_or_fine(read)


ledger_fields = near(["ts", "skill", "kind", "value", "by", "host", "dimension", "currency",
                      "snapshot", "total", "note", "notes"])  # fmt: skip
ledger_line = st.one_of(
    ledger_fields.map(json.dumps),
    st.fixed_dictionaries(
        {
            "ts": st.sampled_from(["2026-01-01T00:00:00.000Z", "2026-02-30T00:00:00Z", "x"]),
            "skill": st.sampled_from(["skill:hello@global", "skill:x@y"]),
            "kind": st.sampled_from(["vote", "rank", "usage", "calibration", "fund"]),
            "value": st.one_of(values, st.sampled_from([1e308, 10**40, -1, 0.5, True])),
            "by": st.sampled_from(["al", "bo", "a\n"]),
            "snapshot": st.booleans(),
            "total": st.one_of(st.integers(-5, 10**20), values),
            "dimension": st.sampled_from(["clarity", "x"]),
            "currency": st.sampled_from(["token", ""]),
        }
    ).map(json.dumps),
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
)


@FUZZ
@given(lines=st.lists(ledger_line, max_size=6))
def test_ledger_reader(repo, lines):
    path = repo / "signals/al/h.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for line in lines:
        parse_line(line, "al")
    agg = every_ledger(repo)
    [score] = quality_all(agg, ["skill:hello@global"], load_weights(repo), time.time())
    assert math.isfinite(score.score)


operators = st.sampled_from(["==", "!=", "<", ">", "<=", "in", "and", "or", "!", "var", "x"])
filters = st.recursive(
    scalars | st.fixed_dictionaries({"var": st.sampled_from(["name", "content.tags", "", "a.0"])}),
    lambda inner: st.one_of(
        st.tuples(operators, st.lists(inner, max_size=3)).map(lambda t: {t[0]: t[1]}),
        st.tuples(operators, inner).map(lambda t: {t[0]: t[1]}),
        st.dictionaries(operators, inner, min_size=2, max_size=2),
    ),
    max_leaves=12,
)
ROW = {"name": "hello", "version": "1.0.0", "quality": 0.5, "content": {"tags": ["a"], "n": 10**30}}


@FUZZ
@given(text=st.one_of(filters.map(json.dumps), st.sampled_from(HOSTILE), st.text(max_size=20)))
def test_list_filter_reader(text):
    def run() -> None:
        evaluate(parse_rule(text), ROW)

    refused_or_fine(run)
