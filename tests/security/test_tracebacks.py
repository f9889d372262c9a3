"""Inputs that used to end in a traceback: each is now a message and an exit code."""

from __future__ import annotations

import marshal
import os
import sqlite3

from exobrain.signals.cache import MAGIC
from exobrain.signals.ledger import ledger_path
from tests.support.hostile import invoke


def test_a_filter_with_an_empty_not_is_a_usage_error(sandbox):
    result = invoke(sandbox.root, ["exobrain", "list", "--filter", '{"!": []}'])
    assert result.code == 2 and "error: filter: ! takes one argument, got 0" in result.err


def test_links_of_any_shape_are_shown(sandbox):
    for links in ("5", "[1, 2]", "{uses_tool: 5}", "{supersedes: {ref: 3}}"):
        (sandbox.root / "skills/hello/SKILL.md").write_text(
            f"---\nname: hello\ndescription: Say hello.\nlinks: {links}\n---\n"
        )
        result = invoke(sandbox.root, ["exobrain", "show", "skill:hello"])
        assert result.code == 0 and "description: Say hello." in result.out


def test_a_locked_search_cache_is_a_message_not_a_traceback(sandbox, monkeypatch):
    """Another process holding the index for longer than the busy timeout (a long build)."""
    from exobrain.search import engine

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(engine.Searcher, "refresh", locked)
    for argv in (
        ["exobrain", "list"],
        ["exobrain", "get", "skill:hello"],
        ["exobrain", "links", "skill:hello"],
        ["exobrain", "discover", "--task", "say hello"],
        ["exobrain", "search", "hello"],
    ):
        result = invoke(sandbox.root, argv)
        assert result.code == 1, (argv, result.text)
        assert "search.sqlite: database is locked" in result.err
        assert "another exobrain command may hold it" in result.err


def test_a_search_cache_that_is_a_folder_gives_a_temporary_index(sandbox):
    (sandbox.root / ".exobrain-cache/search.sqlite").mkdir(parents=True)
    search = invoke(sandbox.root, ["exobrain", "search", "hello"])
    assert search.code == 0 and "hello" in search.out
    assert "is not a file: a temporary index is used for this run" in search.err
    listed = invoke(sandbox.root, ["exobrain", "list"])
    assert listed.code == 0 and "skill:hello@global" in listed.out


def test_a_ledger_that_is_a_folder_or_a_dangling_link(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    ledger = ledger_path(sandbox.root, "alice", "laptop")
    ledger.parent.mkdir(parents=True)
    # a folder cannot be opened (exit 1); a link is never followed (a refused input, exit 2)
    cases = (
        (ledger.mkdir, 1, "signals/alice/laptop.jsonl: cannot open"),
        (lambda: os.symlink(sandbox.root / "gone/ledger", ledger), 2, "is a symbolic link"),
    )
    for make, code, message in cases:
        make()
        vote = invoke(sandbox.root, ["exobrain", "signal", "vote", "skill:hello@global", "up"])
        assert vote.code == code and message in vote.err
        assert invoke(sandbox.root, ["exobrain", "quality"]).code == 0
        compact = invoke(sandbox.root, ["exobrain", "signals", "--compact", "--person", "alice"])
        assert compact.code == code and message in compact.err
        if ledger.is_symlink():
            ledger.unlink()
        else:
            ledger.rmdir()


def test_a_malformed_signal_cache_is_a_miss(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    invoke(sandbox.root, ["exobrain", "signal", "vote", "skill:hello@global", "up"])
    first = invoke(sandbox.root, ["exobrain", "quality", "--json"]).out
    [cache] = (sandbox.home / ".cache/exobrain/signals").iterdir()
    data = cache.read_bytes()
    head = data[len(MAGIC) : len(MAGIC) + 8]
    key = data[len(MAGIC) + 8 : len(MAGIC) + 8 + int.from_bytes(head, "little")]
    for body in (
        data[:-5],
        MAGIC + head + key + marshal.dumps((1, 2)),
        MAGIC + head + key + marshal.dumps(({"skill:hello@global": 5}, {}, {}, {}, {}, 1, [])),
        MAGIC + (2**63).to_bytes(8, "little"),
        b"garbage",
    ):
        cache.write_bytes(body)
        again = invoke(sandbox.root, ["exobrain", "quality", "--json"])
        assert again.code == 0 and again.out == first


def test_connect_agent_in_a_folder_named_in_another_encoding_writes_nothing(tmp_path):
    """Issue 40: a repository whose folder name is not UTF-8 made connect-agent fail with a
    traceback after writing half its files (the index, the connection, the ownership
    records). Now it stops before the first write and says why."""
    from tests.support.helpers import build_tree, git

    root = build_tree(
        tmp_path / os.fsdecode(b"exo\xff"),
        {"skills.json": {"skills": []}, "people/al/AGENTS.md": "# al\n"},
    )
    git(root, "init", "-q", "-b", "main")
    before = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    result = invoke(root, ["connect-agent", "claude", "--person", "al"])
    assert result.code == 2, result.text
    assert "the path is not valid UTF-8" in result.err and "nothing was written" in result.err
    assert "exo\\udcff" in result.err
    after = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    assert after == before
