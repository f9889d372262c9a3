"""SKILL.md frontmatter: parsed within bounds, and the powers a skill would give an agent."""

import re
from pathlib import Path

import pytest

from exobrain.errors import InputFileError
from exobrain.model import AGENT_HOOKS, TOOL_WILDCARDS
from exobrain.skillmd import (
    frontmatter_mentioning,
    parse,
    powers,
    split_frontmatter,
    wildcard_grants,
)


def meta(*lines: str) -> dict:
    return parse("---\n" + "\n".join(lines) + "\n---\nbody\n", "SKILL.md").meta


def test_anchors_without_aliases_and_ordinary_values_are_fine():
    assert meta("name: a", "description: &d text", "n: 12", "f: 1.5e+3") == {
        "name": "a",
        "description": "text",
        "n": 12,
        "f": 1500.0,
    }


@pytest.mark.parametrize(
    "lines, words",
    [
        (["a: &x [1, 2]", "b: [*x, *x]"], "SKILL.md:2: frontmatter refused: YAML aliases"),
        (["a: &x {k: 1}", "b: {<<: *x}"], "YAML aliases"),
        (["a: &x [*x]"], "YAML aliases"),  # a recursive alias
        (["a: " + "[" * 65 + "]" * 65], "nested deeper than 64 levels"),
        (["a: " + "9" * 5000], "a number of 5000 characters (at most 64)"),
        (["a: -" + "1" * 70 + ".5"], "a number of 73 characters"),
    ],
)
def test_hostile_frontmatter_is_refused_before_it_is_built(lines, words):
    with pytest.raises(InputFileError, match=re.escape(words)):
        meta(*lines)


@pytest.mark.parametrize(
    "value, grants",
    [
        ("*", ["*"]),
        ("Bash(*) Read", ["Bash(*)"]),
        (["Bash(*:*)", "Edit(*)"], ["Bash(*:*)", "Edit(*)"]),
        ("Read, Bash", ["Bash"]),
        ("Bash(git status:*) Read Write", []),
        ("mcp__server__*", []),
        (None, []),
    ],
)
def test_wildcard_grants(value, grants):
    assert wildcard_grants(value) == grants


def test_powers_name_their_policy_rule():
    found = powers({"hooks": {"PreToolUse": [{"command": "x"}]}, "allowed-tools": "*"})
    assert [rule for rule, _ in found] == [AGENT_HOOKS, TOOL_WILDCARDS]
    assert powers({"hooks": {}, "allowed-tools": "Read"}) == []


def _split_by_lines(text: str) -> tuple[str, str, int] | None:
    """split_frontmatter as its rule reads: every line split out, None when it refuses."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[0].rstrip("\r") != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") in ("---", "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 2
    return None


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: a\ndescription: b\n---\n# A\n\nbody\n",
        "---\r\nname: a\r\n---\r\nbody\r\n",
        "\ufeff---\nname: a\n...\nbody",
        "---\n---",
        "---\n---\n",
        "---\nname: a\n---",
        "---\n\n\n---\n\n",
        "---\nname: a\n --- \n---\nx",
        "---",
        "---\n",
        "--- \nname: a\n---\n",
        "---\nname: a\n",
        "",
        "no frontmatter\n---\n",
    ],
)
def test_frontmatter_is_split_as_the_line_rule_says(text):
    expected = _split_by_lines(text)
    if expected is None:
        with pytest.raises(InputFileError):
            split_frontmatter(text, Path("SKILL.md"))
    else:
        assert split_frontmatter(text, Path("SKILL.md")) == expected


def test_the_frontmatter_is_parsed_only_when_the_file_mentions_the_marker(tmp_path):
    linked = tmp_path / "linked.md"
    linked.write_text("---\nname: a\nlinks:\n  supersedes: [skill:b]\n---\nbody\n")
    plain = tmp_path / "plain.md"
    plain.write_text("---\nname: a\ndescription: d\n---\nbody\n")
    broken = tmp_path / "broken.md"
    broken.write_text("---\nname: [supersedes\n---\n")
    assert frontmatter_mentioning(linked, b"supersedes") == {
        "name": "a",
        "links": {"supersedes": ["skill:b"]},
    }
    assert frontmatter_mentioning(plain, b"supersedes") is None  # no parse at all
    assert frontmatter_mentioning(broken, b"supersedes") is None  # validate reports it
    assert frontmatter_mentioning(tmp_path / "missing.md", b"x") is None
    assert frontmatter_mentioning(tmp_path, b"x") is None  # a folder: not a regular file
