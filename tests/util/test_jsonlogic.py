"""The JSONLogic subset of ``exobrain list --filter`` and the ``--sort`` keys."""

from __future__ import annotations

import pytest

from exobrain.errors import UsageError
from exobrain.util.jsonlogic import evaluate, parse_rule, parse_sort, sort_rows

ROW = {
    "ref": "skill:a@global",
    "lifecycle": "active",
    "quality": 0.7,
    "content": {"tags": ["chemistry", "docking"], "version": "1.2.0", "inputs": {"n": 3}},
}


@pytest.mark.parametrize(
    "rule, expected",
    [
        ({"==": [{"var": "lifecycle"}, "active"]}, True),
        ({"!=": [{"var": "lifecycle"}, "active"]}, False),
        ({"==": [{"var": "content.inputs.n"}, 3.0]}, True),
        ({"==": [{"var": "content.inputs.n"}, "3"]}, False),
        ({">": [{"var": "quality"}, 0.5]}, True),
        ({"<": [{"var": "quality"}, 0.5]}, False),
        ({"<": [{"var": "content.missing"}, 1]}, False),
        ({">=": [{"var": "content.version"}, "1.2.0"]}, True),
        ({"in": ["docking", {"var": "content.tags"}]}, True),
        ({"in": ["dock", {"var": "content.tags"}]}, False),
        ({"in": ["dock", {"var": "ref"}]}, False),
        ({"in": ["skill:", {"var": "ref"}]}, True),
        ({"in": ["x", {"var": "content.missing"}]}, False),
        (
            {
                "and": [
                    {"in": ["chemistry", {"var": "content.tags"}]},
                    {">": [{"var": "quality"}, 0.9]},
                ]
            },
            False,
        ),
        (
            {
                "or": [
                    {"in": ["biology", {"var": "content.tags"}]},
                    {">": [{"var": "quality"}, 0.5]},
                ]
            },
            True,
        ),
        ({"!": {"in": ["biology", {"var": "content.tags"}]}}, True),
        ({"==": [{"var": ["content.missing", "fallback"]}, "fallback"]}, True),
        ({"==": [{"var": "content.tags.1"}, "docking"]}, True),
    ],
)
def test_operators(rule, expected):
    assert bool(evaluate(parse_rule(__import__("json").dumps(rule)), ROW)) is expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "not JSON"),
        ('{"like": [1, 2]}', "unknown operator 'like'"),
        ('{"==": [1]}', "== takes two arguments"),
        ('{"and": []}', "needs at least one argument"),
        ('{"==": [1, 2], "!=": [1, 2]}', "exactly one operator"),
        ('{"var": 3}', "var takes a dotted path"),
        ('{"and": [{"==": [1, 1]}, {"nope": 1}]}', "filter.and[1]: unknown operator"),
    ],
)
def test_bad_rules_are_usage_errors_that_say_where(text, message):
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_rule(text)


def test_sort_by_field_with_missing_last_and_versions_by_number():
    rows = [
        {"ref": "c", "content": {"version": "1.10.0"}},
        {"ref": "a", "content": {}},
        {"ref": "b", "content": {"version": "1.9.0"}},
        {"ref": "d", "content": {"version": "1.9.0"}},
    ]
    down = sort_rows(rows, parse_sort(("content.version:desc",)))
    assert [r["ref"] for r in down] == ["c", "b", "d", "a"]
    up = sort_rows(rows, parse_sort(("content.version",)))
    assert [r["ref"] for r in up] == ["b", "d", "c", "a"]


@pytest.mark.parametrize("spec", ["", ":desc", "content.x:sideways"])
def test_bad_sort_specs(spec):
    with pytest.raises(UsageError):
        parse_sort((spec,))
