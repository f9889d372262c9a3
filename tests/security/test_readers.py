"""Readers that cannot be crashed (issue 30): frontmatter of every type YAML's safe loader
builds, caches and kept or published catalog rows that are damaged, folders a member made
unreadable and archives that are damaged each end in output or a message with an exit code,
never a traceback. The sandbox fixture checks that nothing outside the exobrain changed."""

from __future__ import annotations

import json

import pytest

from tests.support.hostile import invoke

#: Every kind of value PyYAML's safe loader builds, as an unquoted author would write them.
ODD = """---
name: hello
description: Say hello.
version: 0.1.0
created: 2020-01-01
updated: 2020-01-02 10:30:00
blob: !!binary aGVsbG8gd29ybGQh
labels: !!set {b, a}
count: 3
ratio: .nan
ceiling: .inf
flag: true
nothing: null
2020-02-02: a date as a key
7: a number as a key
pairs: !!omap [{x: 1}, {y: 2}]
nested: {a: [1, 2020-03-03, {b: !!binary aGk=}], 2020-04-04: [true]}
---
Say hello to whoever asks.
"""
#: How each value reads in JSON (and, dumped, in show's text).
SHOWN = {
    "created": "2020-01-01",
    "updated": "2020-01-02T10:30:00",
    "blob": "<12 bytes>",
    "labels": ["a", "b"],
    "count": 3,
    "ratio": ".nan",
    "ceiling": ".inf",
    "flag": True,
    "nothing": None,
    "2020-02-02": "a date as a key",
    "7": "a number as a key",
    "pairs": [["x", 1], ["y", 2]],
    "nested": {"a": [1, "2020-03-03", {"b": "<2 bytes>"}], "2020-04-04": [True]},
}


def user_files_intact(scene) -> None:
    """The user's own files are all still there (the sandbox also checks their bytes)."""
    for path in (scene.home / ".bashrc", scene.home / ".ssh/authorized_keys"):
        assert path.is_file(), path
    assert (scene.victim / "notes.md").read_text() == "mine\n"


def test_show_prints_every_frontmatter_type(sandbox):
    (sandbox.root / "skills/hello/SKILL.md").write_text(ODD)
    text = invoke(sandbox.root, ["exobrain", "show", "skill:hello@global"])
    assert text.code == 0, text.text
    for line in (
        "    created: 2020-01-01",
        "    updated: 2020-01-02T10:30:00",
        "    blob: <12 bytes>",
        '    labels: ["a", "b"]',
        "    ratio: .nan",
        "    2020-02-02: a date as a key",
        '    nested: {"a": [1, "2020-03-03", {"b": "<2 bytes>"}], "2020-04-04": [true]}',
    ):
        assert line in text.out.splitlines(), (line, text.out)
    shown = invoke(sandbox.root, ["exobrain", "show", "skill:hello@global", "--json"])
    assert shown.code == 0
    frontmatter = json.loads(shown.out)["frontmatter"]  # strict JSON: no NaN, no Infinity
    assert {k: frontmatter[k] for k in SHOWN} == SHOWN
    user_files_intact(sandbox)


@pytest.mark.parametrize(
    "argv, content",
    [
        (["exobrain", "get", "skill:hello@global", "--json"], lambda d: d["content"]),
        (["exobrain", "list", "--json"], lambda d: d[0]["content"]),
    ],
)
def test_the_substrate_verbs_serialise_every_frontmatter_type(sandbox, argv, content):
    (sandbox.root / "skills/hello/SKILL.md").write_text(ODD)
    result = invoke(sandbox.root, argv)
    assert result.code == 0, result.text
    meta = content(json.loads(result.out))
    assert {k: meta[k] for k in SHOWN} == SHOWN
    assert invoke(sandbox.root, argv[:-1]).code == 0  # and as text
    user_files_intact(sandbox)


@pytest.mark.parametrize(
    "argv",
    [
        ["exobrain", "search", "say hello", "--json"],
        ["exobrain", "discover", "--task", "say hello", "--json"],
        ["exobrain", "links", "skill:hello@global", "--json"],
    ],
)
def test_search_discover_and_links_read_every_frontmatter_type(sandbox, argv):
    (sandbox.root / "skills/hello/SKILL.md").write_text(ODD)
    result = invoke(sandbox.root, argv)
    assert result.code == 0 and "skill:hello@global" in result.out, result.text
    user_files_intact(sandbox)


def test_the_site_shows_every_frontmatter_type(sandbox):
    (sandbox.root / "skills/hello/SKILL.md").write_text(ODD)
    out = sandbox.scratch / "site"
    result = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
    assert result.code == 0, result.text
    page = next(out.rglob("hello*.html")).read_text()
    assert "2020-01-01" in page and "&lt;12 bytes&gt;" in page
    user_files_intact(sandbox)


def test_export_refuses_what_metadata_cannot_carry_and_keeps_dates(sandbox):
    (sandbox.root / "skills/hello/SKILL.md").write_text(ODD)
    out = sandbox.scratch / "bundle"
    refused = invoke(
        sandbox.root,
        ["exobrain", "export", "skill:hello", "--format", "agentskills-io", "-o", str(out)],
    )
    assert refused.code == 1 and not out.exists()
    assert "blob holds binary data (!!binary), which metadata cannot carry" in refused.err
    assert "frontmatter key 2020-02-02 is not text: quote it ('2020-02-02':)" in refused.err
    stripped = invoke(
        sandbox.root,
        [
            "exobrain",
            "export",
            "skill:hello",
            "--format",
            "agentskills-io",
            "-o",
            str(out),
            "--strip",
        ],
    )
    assert stripped.code == 0, stripped.text
    (sandbox.root / "skills/hello/SKILL.md").write_text(
        "---\nname: hello\ndescription: Say hello.\nversion: 0.1.0\ncreated: 2020-01-01\n"
        "labels: !!set {b, a}\n---\nSay hello.\n"
    )
    dated = sandbox.scratch / "dated"
    done = invoke(
        sandbox.root,
        ["exobrain", "export", "skill:hello", "--format", "agentskills-io", "-o", str(dated)],
    )
    assert done.code == 0, done.text
    text = (dated / "hello/SKILL.md").read_text()
    assert "created: '2020-01-01'" in text and """labels: '["a", "b"]'""" in text
    user_files_intact(sandbox)
