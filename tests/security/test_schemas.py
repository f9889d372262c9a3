"""Strict schemas: names and ids anchored to the whole string, non-objects refused, and every
command that depends on a broken registry says so with exit 2."""

from __future__ import annotations

import json

import jsonschema
import pytest

from exobrain.registry.rules import entry_problem, top_level_problem
from tests.support import ROOT
from tests.support.hostile import invoke

SCHEMA = json.loads((ROOT / "skills.schema.json").read_text())
SOURCE = {"repo": "https://example.com/r", "path": "skills/x", "ref": "main"}
TRAILING_NEWLINE = [
    {"name": "evil\n", "owner": "o", "tier": "always"},
    {"name": "a", "owner": "eve\n", "tier": "always"},
    {"name": "a", "from": "groups/acme\n", "tier": "off"},
    {"name": "a", "owner": "o", "tier": "always", "agent": "claude\n"},
    {"name": "a", "owner": "o", "tier": "always", "skipAgents": ["codex\n"]},
    {"name": "a", "owner": "o", "tier": "always", "reviewed_at": "2026-11-29T\n"},
    {"name": "a", "owner": "o", "tier": "always", "source": {**SOURCE, "repo": "r\n"}},
    {"name": "a", "owner": "o", "tier": "always", "source": {**SOURCE, "ref": "main\n"}},
    {"name": "a", "owner": "o", "tier": "always", "source": {**SOURCE, "path": "skills/x\n"}},
]


@pytest.mark.parametrize("entry", TRAILING_NEWLINE)
def test_a_trailing_newline_fails_the_schema_and_the_fast_check_alike(entry):
    assert entry_problem(entry) is not None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"skills": [entry]}, SCHEMA)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "skills",
        5,
        {"skills": None},
        {"skills": [], "extra": 1},
        {"skills": [], "$schema": 1},
        {"skills": [], "policy": {"agent_hooks": "maybe"}},
        {"skills": [], "policy": {"else": "refuse"}},
    ],
)
def test_non_objects_and_unknown_top_levels_fail_both_checks(data):
    assert top_level_problem(data) is not None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, SCHEMA)


def test_a_newline_in_a_name_is_refused_by_validate(sandbox):
    path = sandbox.root / "skills.json"
    data = json.loads(path.read_text())
    data["skills"].append({"name": "evil\n", "owner": "team", "tier": "optional"})
    path.write_text(json.dumps(data))
    result = invoke(sandbox.root, ["skills-validate"])
    assert result.code == 2 and "skills.json:1 #2 evil\n: name: a skill name" in result.out


@pytest.mark.parametrize("text", ["null", "[]", '"skills"', "5", "{}"])
def test_a_registry_that_is_not_an_object_with_skills_does_not_validate(sandbox, text):
    (sandbox.root / "people/alice/skills.json").write_text(text)
    result = invoke(sandbox.root, ["skills-validate"])
    assert result.code == 2 and "people/alice/skills.json" in result.out


def test_lock_on_a_broken_registry_does_not_say_all_is_up_to_date(sandbox):
    (sandbox.root / "skills.json").write_text("null")
    for argv in (["exobrain", "lock"], ["exobrain", "lock", "--check"]):
        result = invoke(sandbox.root, argv)
        assert result.code == 2 and "all locks up to date" not in result.out
        assert 'skills.json: expected an object with a "skills" list' in result.err


@pytest.mark.parametrize(
    "argv",
    [
        ["skills-status"],
        ["exobrain", "search", "hello"],
        ["exobrain", "list"],
        ["exobrain", "get", "skill:hello"],
        ["exobrain", "discover", "--task", "hello"],
        ["exobrain", "links", "skill:hello"],
        ["exobrain", "show", "skill:hello"],
        ["exobrain", "quality"],
        ["exobrain", "sweep", "--dry-run"],
        ["connect-agent", "claude", "--dry-run"],
    ],
)
def test_read_commands_exit_2_on_a_broken_person_registry(sandbox, argv):
    (sandbox.root / "people/alice/skills.json").write_text('{"skills": [{"name": "x"}]}')
    result = invoke(sandbox.root, argv)
    assert result.code == 2, result.text
    assert "people/alice/skills.json" in result.err
