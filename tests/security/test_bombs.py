"""Bounded work: one hostile file — a YAML alias bomb, JSON nested 200,000 deep, a 5,000-digit
number, NaN, an absurd signal value — ends in a finding that names it, for every command that
reads it, and costs no more than the file itself (the time and memory figures come from
``python scripts/benchmarks security``)."""

from __future__ import annotations

import json

import pytest

from tests.support.hostile import invoke, spawn

BOMB = (
    "---\nname: hello\n"
    + 'description: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n"
        for p, k in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\nbody\n"
)


@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["skills-validate"], 2, "skills/hello/SKILL.md:3: frontmatter refused: YAML aliases"),
        (["skills-status"], 0, "WARNING skill-unreadable: skills/hello/SKILL.md:3"),
        (["skills-status", "--all"], 0, "frontmatter refused: YAML aliases"),
        (["exobrain", "list"], 0, "skills/hello/SKILL.md:3: frontmatter refused"),
        (["exobrain", "search", "hello"], 0, "skills/hello/SKILL.md:3: frontmatter refused"),
    ],
)
def test_an_alias_bomb_in_a_skill_is_a_finding(sandbox, argv, code, words):
    (sandbox.root / "skills/hello/SKILL.md").write_text(BOMB)
    result = spawn(sandbox.root, argv)
    assert result.code == code and words in result.text, result.text


def test_importing_an_alias_bomb_skips_it_with_its_reason(sandbox):
    source = sandbox.scratch / "bomb"
    source.mkdir()
    (source / "SKILL.md").write_text(BOMB)
    result = spawn(sandbox.root, ["exobrain", "import", str(source)])
    assert result.code == 1 and "YAML aliases (*name) are not allowed" in result.text


@pytest.mark.parametrize(
    "line, words",
    [
        ("v: " + "[" * 70 + "]" * 70, "nested deeper than 64 levels"),
        ("v: " + "9" * 5000, "a number of 5000 characters (at most 64)"),
    ],
)
def test_deep_or_huge_frontmatter_is_a_finding(sandbox, line, words):
    (sandbox.root / "skills/hello/SKILL.md").write_text(
        f"---\nname: hello\ndescription: x\n{line}\n---\n"
    )
    result = invoke(sandbox.root, ["skills-validate"])
    assert result.code == 2 and f"skills/hello/SKILL.md:4: frontmatter refused: {words}" in (
        result.out
    )


HOSTILE_JSON = {
    "deep": ("[" * 200_000 + "]" * 200_000, "nested deeper than 64 levels"),
    "bigint": ('{"skills": [], "n": ' + "9" * 5000 + "}", "a number of 5000 digits"),
    "nan": ('{"skills": [], "n": NaN}', "NaN is not a JSON number"),
    "infinity": ('{"skills": [], "n": -Infinity}', "-Infinity is not a JSON number"),
    "overflow": ('{"skills": [], "n": 1e999}', "the number 1e999 is too large to be finite"),
}
#: file → the commands that read it and must refuse it (exit 2, the file named)
READERS = {
    "skills.json": [["skills-validate"], ["skills-status"], ["exobrain", "list"]],
    "people/alice/skills.json": [
        ["skills-status"],
        ["exobrain", "search", "hello"],
        ["connect-agent", "claude", "--dry-run"],
    ],
    "skills.lock.json": [["skills-validate"], ["exobrain", "lock", "--check"]],
    "crons.json": [["skills-validate"], ["exobrain", "crons"]],
    "scopes.json": [["skills-status"], ["exobrain", "get", "skill:hello"]],
    ".exobrain.json": [["skills-status"], ["fetch-external-skills", "--check"]],
    "signals/weights.json": [["exobrain", "quality"], ["exobrain", "sweep", "--dry-run"]],
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_JSON))
@pytest.mark.parametrize("name", sorted(READERS))
def test_hostile_json_is_refused_by_every_reader_naming_the_file(sandbox, name, kind):
    text, words = HOSTILE_JSON[kind]
    path = sandbox.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    for argv in READERS[name]:
        result = invoke(sandbox.root, argv)
        assert result.code == 2, (argv, result.text)
        assert name in result.text and words in result.text, (argv, result.text)


def test_hostile_list_filters_are_usage_errors(sandbox):
    for rule, words in [
        ("[" * 200_000, "--filter refused: nested deeper than 64 levels"),
        ('{"==": [1, ' + "9" * 5000 + "]}", "--filter refused: a number of 5000 digits"),
        ('{"!": []}', "! takes one argument, got 0"),
    ]:
        result = invoke(sandbox.root, ["exobrain", "list", "--filter", rule])
        assert result.code == 2 and words in result.err


def vote(value, **extra) -> str:
    line = {"ts": "2026-01-01T00:00:00.000Z", "skill": "skill:hello@global", "kind": "fund"}
    return json.dumps({**line, "value": value, "currency": "token", **extra, "by": "alice"})


@pytest.mark.parametrize(
    "line, words",
    [
        (vote(1e308), "fund value must be a number from 0.000001 to 1000000000"),
        (vote(10**40), "fund value must be a number from 0.000001"),
        (vote("1e999"), "fund value must be a number"),
        (
            vote(10**30, kind="usage", snapshot=True),
            "usage value must be 1 (a snapshot: a count from 1 to 1000000000)",
        ),
        ('{"value": 1e999}', "invalid JSON (the number 1e999 is too large to be finite)"),
        ("[" * 200_000, "invalid JSON (nested deeper than 64 levels)"),
    ],
)
def test_an_absurd_signal_value_is_a_finding_for_its_line_never_a_crash(sandbox, line, words):
    ledger = sandbox.root / "signals/alice/laptop.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text(vote(5) + "\n" + line + "\n")
    for argv in (
        ["exobrain", "quality"],
        ["exobrain", "signals", "skill:hello@global"],
        ["exobrain", "search", "hello"],
        ["exobrain", "sweep", "--dry-run"],
        ["exobrain", "signals", "--compact", "--person", "alice", "--dry-run"],
    ):
        result = invoke(sandbox.root, argv)
        assert result.code == 0, (argv, result.text)
        reads_it = argv[1] == "quality" or (argv[2] == "skill:hello@global" and "hello" in line)
        if reads_it:  # signals REF reads only the lines that mention REF
            assert f"signals/alice/laptop.jsonl:2: skipped: {words}" in result.err, (
                argv,
                result.text,
            )
