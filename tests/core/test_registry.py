import json

import jsonschema
import pytest

from exobrain.model import Lifecycle, Tier
from exobrain.registry.entries import (
    Entry,
    load_registry,
    make_entry,
    registry_from_text,
    registry_if_clean,
)
from exobrain.registry.rules import entry_problem
from exobrain.registry.schema import schema_findings
from tests.support import ROOT

SCHEMA = json.loads((ROOT / "skills.schema.json").read_text())
SRC = {"repo": "https://github.com/anthropics/skills", "path": "skills/x", "ref": "main"}

GOOD = [
    {"name": "a", "owner": "alex", "tier": "optional"},
    {
        "name": "a",
        "owner": "acme",
        "tier": "always",
        "force": True,
        "lifecycle": "draft",
        "notes": "n",
        "reviewed_by": "kim",
        "reviewed_at": "2026-11-29",
    },
    {"name": "a", "from": "global", "tier": "off"},
    {"name": "a", "from": "groups/acme", "tier": "always", "agent": "claude"},
    {"name": "x", "owner": "anthropic", "tier": "optional", "source": SRC, "skipAgents": ["codex"]},
    {"name": "x", "from": "external", "owner": "anthropic", "tier": "always"},
]
BAD = [
    {"name": "a", "owner": "x", "tier": "off"},
    {"name": "a", "from": "global", "tier": "always", "force": True},
    {"name": "a", "from": "global", "tier": "always", "source": SRC},
    {"name": "a", "from": "global", "tier": "always", "owner": "bob"},
    {"name": "a", "from": "external", "tier": "always"},
    {"name": "a", "owner": "x", "tier": "always", "agent": "claude", "skipAgents": ["codex"]},
    {"name": "a", "owner": "x", "tier": "always", "colour": "red"},
    {"name": "A_b", "owner": "x", "tier": "always"},
    {"name": "a", "tier": "always"},
    {"name": "a", "owner": "x", "tier": "always", "lifecycle": "gone"},
    {"name": "a", "from": "../x", "tier": "always"},
    {"name": "a", "from": "groups/a__b", "tier": "always"},
    {
        "name": "a",
        "owner": "x",
        "tier": "always",
        "source": {"repo": "-u", "path": "a", "ref": "m"},
    },
    {
        "name": "a",
        "owner": "x",
        "tier": "always",
        "source": {"repo": "r", "path": "../a", "ref": "m"},
    },
    {"name": "a", "owner": "x", "tier": "always", "source": {"repo": "r", "path": "a"}},
    {"name": "a", "from": "global", "tier": "always", "lifecycle": "active"},
    {"name": "a", "owner": "x", "tier": "always", "skipAgents": []},
    "just a string",
]


@pytest.mark.parametrize("entry", GOOD)
def test_valid_entries_pass_both_checks(entry):
    assert entry_problem(entry) is None
    jsonschema.validate({"skills": [entry]}, SCHEMA)


@pytest.mark.parametrize("entry", BAD)
def test_invalid_entries_fail_both_checks(entry):
    assert entry_problem(entry) is not None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"skills": [entry]}, SCHEMA)


@pytest.mark.parametrize("raw", GOOD)
def test_make_entry_is_the_entry_the_dataclass_makes(raw):
    made = make_entry(raw, "people/ana", 3)
    skip = raw.get("skipAgents")
    expected = Entry(
        name=raw["name"],
        tier=Tier(raw["tier"]),
        scope="people/ana",
        index=3,
        owner=raw.get("owner"),
        origin=raw.get("from"),
        force=raw.get("force") is True,
        source=raw.get("source"),
        agent=raw.get("agent"),
        skip_agents=tuple(skip) if skip else (),
        lifecycle=Lifecycle(raw.get("lifecycle", "active")),
        notes=raw.get("notes"),
    )
    assert made == expected and vars(made).keys() == {*vars(expected), "identity"}
    assert made.identity == expected.identity  # computed the slow way for ``expected``


UNCLEAN = [
    *[json.dumps({"skills": [*GOOD, bad]}) for bad in BAD],
    json.dumps({"skills": GOOD, "policy": {"agent_hooks": "refuse"}}),  # kept only by a parse
    json.dumps({"skills": GOOD, "extra": 1}),
    json.dumps({"skills": {}}),
    json.dumps([]),
    '{"skills": [',
    "",
    "[" * 100_000,
]


def test_a_clean_registry_is_the_one_a_full_parse_makes(tmp_path):
    text = json.dumps({"$schema": "../skills.schema.json", "skills": GOOD})
    clean, full = (
        registry_if_clean(tmp_path, "people/ana", text),
        registry_from_text(tmp_path, "people/ana", text),
    )
    assert clean is not None and not full.findings
    assert clean.entries == full.entries and clean.parsed and clean.policy == full.policy


def _views(registry):
    return (
        registry.declared(),
        registry.overridden(),
        [registry.entry(i) for i, _ in registry.declared() + registry.overridden()],
        registry.filters_agents(),
    )


@pytest.mark.parametrize("skills", [GOOD, GOOD[:3], [GOOD[0]]])
def test_the_views_made_without_entries_are_the_entries(tmp_path, skills):
    text = json.dumps({"skills": skills})
    lazy = registry_if_clean(tmp_path, "people/ana", text)
    assert lazy is not None
    views = _views(lazy)
    assert lazy.valid_raw() is not None  # still no entry list made: the fast way was taken
    declared, overridden, entries, filters = views
    by_index = {e.index: e for e in lazy.entries}
    assert declared == [(e.index, e.identity) for e in lazy.entries if not e.is_override]
    assert overridden == [(e.index, e.identity) for e in lazy.entries if e.is_override]
    assert entries == [by_index[i] for i, _ in declared + overridden]
    assert filters == any(e.agent or e.skip_agents for e in lazy.entries)
    assert views == _views(registry_from_text(tmp_path, "people/ana", text))


def test_the_views_skip_an_entry_the_fast_check_refuses(tmp_path):
    registry = registry_from_text(tmp_path, "people/ana", json.dumps({"skills": [BAD[0], *GOOD]}))
    assert registry.bad_entries.keys() == {0}
    declared, overridden, entries, _ = _views(registry)
    assert 0 not in [i for i, _ in declared + overridden]
    assert [e.index for e in entries] == [i for i, _ in declared + overridden]


@pytest.mark.parametrize("text", UNCLEAN)
def test_anything_a_full_parse_reports_or_keeps_is_left_to_it(tmp_path, text):
    assert registry_if_clean(tmp_path, "people/ana", text) is None
    full = registry_from_text(tmp_path, "people/ana", text)
    assert full.findings or "policy" in full.data


def test_packaged_schema_equals_the_repository_copy():
    root = ROOT
    assert (root / "skills.schema.json").read_bytes() == (
        root / "scripts/exobrain/schemas/skills.schema.json"
    ).read_bytes()


def test_bad_entry_reported_with_line_and_others_still_load(tmp_path):
    (tmp_path / "skills.json").write_text(
        '{\n  "skills": [\n    {"name": "ok", "owner": "a", "tier": "always"},\n'
        '    {"name": "bad", "from": "global", "tier": "always", "force": true}\n  ]\n}\n'
    )
    registry = load_registry(tmp_path, "global")
    assert [e.name for e in registry.entries] == ["ok"]
    [finding] = registry.findings
    assert (finding.line, finding.entry) == (4, "#1 bad") and "force" in finding.message
    [full] = schema_findings(tmp_path, registry)
    assert full.line == 4 and "force" in full.message


def test_malformed_json_reports_line_and_column(tmp_path):
    (tmp_path / "skills.json").write_text('{\n  "skills": [\n    {"name": "a",}\n  ]\n}\n')
    [finding] = load_registry(tmp_path, "global").findings
    assert finding.code == "registry-json" and finding.line == 3 and finding.bad_input


def test_missing_registry_is_empty_not_an_error(tmp_path):
    registry = load_registry(tmp_path, "global")
    assert not registry.exists and not registry.findings


@pytest.mark.parametrize(
    "content,code",
    [(b"", "registry-json"), (b'{"skills": [{"name": "caf\xe9"}]}', "registry-unreadable")],
)
def test_empty_and_non_utf8_files(tmp_path, content, code):
    (tmp_path / "skills.json").write_bytes(content)
    [finding] = load_registry(tmp_path, "global").findings
    assert finding.code == code and finding.bad_input
