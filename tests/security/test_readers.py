"""Readers that cannot be crashed (issue 30): frontmatter of every type YAML's safe loader
builds, caches and kept or published catalog rows that are damaged, folders a member made
unreadable and archives that are damaged each end in output or a message with an exit code,
never a traceback. The sandbox fixture checks that nothing outside the exobrain changed."""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.helpers import build_tree
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


# --- caches, kept and published catalog rows ------------------------------------------------

CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]
ROWS = ".exobrain-cache/catalog/rows"
#: JSON nested far deeper than Python's own recursion limit lets ``json`` read.
DEEP = "[" * 100_000 + "]" * 100_000


def one_warning(result, *words: str) -> None:
    """Exactly one warning line about a damaged cache, naming what it was given."""
    lines = [line for line in result.err.splitlines() if line.startswith("warning: ")]
    assert len(lines) == 1, result.err
    assert all(word in lines[0] for word in words), lines[0]
    assert lines[0].endswith("; ignored, made again"), lines[0]


@pytest.fixture
def sparse(sandbox):
    """A sparse, blob-less clone connected as p0001 (the big exobrain's way), its origin and
    its full catalog, made with no cache of any kind."""
    from tests.support.sparse import origin, sparse_clone

    bare = origin(sandbox.scratch)
    root = sparse_clone(bare, sandbox.scratch / "clone")
    assert invoke(root, ["connect-agent", *CONNECT]).code == 0
    expected = invoke(root, ["skills-status", "--all"])
    assert expected.code == 0 and "warning" not in expected.err
    return root, bare, expected.out


def test_a_deeply_nested_tree_cache_shard_is_read_again_from_git(sandbox, sparse):
    from exobrain.sparse.treecache import UNITS, shard_file, shard_of

    root, _, expected = sparse
    shutil.rmtree(root / ".exobrain-cache/catalog")  # no memo, no kept rows: the cache is read
    shard = shard_file(root, UNITS, shard_of(UNITS, "people/p0003"))
    shard.write_text('{"version": 4, "units": {"people/p0003": ' + DEEP + "}}")
    result = invoke(root, ["skills-status", "--all"])
    assert result.code == 0 and result.out == expected
    one_warning(result, ".exobrain-cache/tree/", "nested deeper than 64 levels")
    assert "people/p0003" in json.loads(shard.read_text())[UNITS]  # written anew
    again = invoke(root, ["skills-status", "--all"])
    assert again.out == expected and "warning" not in again.err
    user_files_intact(sandbox)


def test_a_unit_of_the_wrong_types_is_listed_again(sandbox, sparse):
    from exobrain.sparse.treecache import UNITS, shard_file, shard_of

    root, _, expected = sparse
    shutil.rmtree(root / ".exobrain-cache/catalog")
    shard = shard_file(root, UNITS, shard_of(UNITS, "people/p0003"))
    data = json.loads(shard.read_text())
    tree, scopes = data[UNITS]["people/p0003"]
    data[UNITS]["people/p0003"] = [tree, [[7, "person", None, [], []], *scopes]]
    shard.write_text(json.dumps(data))
    result = invoke(root, ["skills-status", "--all"])
    assert result.code == 0 and result.out == expected
    one_warning(result, shard.name, "unit people/p0003 of the wrong shape")
    user_files_intact(sandbox)


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda meta: DEEP, "nested deeper than 64 levels"),
        (lambda meta: json.dumps({**meta, "widths": ["wide"] * len(meta["widths"])}), "widths"),
        (lambda meta: json.dumps({**meta, "head": 7}), "names no commit"),
    ],
    ids=["deep", "widths-not-counts", "no-commit"],
)
def test_kept_catalog_rows_that_are_damaged_are_made_again(sandbox, sparse, damage, words):
    root, _, expected = sparse
    meta_file = root / ROWS / "table.meta.json"
    meta_file.write_text(damage(json.loads(meta_file.read_text())))
    result = invoke(root, ["skills-status", "--all"])
    assert result.code == 0 and result.out == expected
    one_warning(result, f"{ROWS}/table.*", words)
    assert all(type(w) is int for w in json.loads(meta_file.read_text())["widths"])  # kept again
    user_files_intact(sandbox)


def _tamper_published(work, edit) -> None:
    """Replace ``table.rows.txt`` on the published branch with ``edit`` of its bytes."""
    from tests.support.helpers import git

    lines = []
    for line in git(work, "ls-tree", "exobrain-catalog").splitlines():
        mode_type_oid, name = line.split("\t")
        if name == "table.rows.txt":
            old = mode_type_oid.split()[2]
            data = edit(
                subprocess.run(
                    ["git", "-C", str(work), "cat-file", "blob", old],
                    capture_output=True,
                    check=True,
                ).stdout
            )
            new = subprocess.run(
                ["git", "-C", str(work), "hash-object", "-w", "--stdin"],
                input=data,
                capture_output=True,
                check=True,
            ).stdout.decode()
            mode_type_oid = f"100644 blob {new.strip()}"
        lines.append(f"{mode_type_oid}\t{name}")
    tree = subprocess.run(
        ["git", "-C", str(work), "mktree"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = git(work, "commit-tree", tree, "-m", "published, then tampered with").strip()
    git(work, "update-ref", "refs/heads/exobrain-catalog", commit)
    git(work, "push", "-q", "--force", "origin", "exobrain-catalog")


def test_published_rows_that_are_not_utf8_are_never_kept(sandbox, sparse):
    from tests.support.helpers import git
    from tests.support.sparse import full_clone, sparse_clone

    _, bare, expected = sparse
    work = full_clone(bare, sandbox.scratch / "work")
    assert invoke(work, ["exobrain", "publish-catalog"]).code == 0
    git(work, "push", "-q", "--force", "origin", "exobrain-catalog")
    _tamper_published(work, lambda data: data.replace(b"skill", b"sk\xffll"))  # same length
    root = sparse_clone(bare, sandbox.scratch / "fresh")
    assert invoke(root, ["connect-agent", *CONNECT]).code == 0
    git(root, "config", "exobrain.catalog", "origin/exobrain-catalog")
    first = invoke(root, ["skills-status", "--all"])
    assert first.code == 0 and first.out == expected
    one_warning(first, "the catalog published on origin/exobrain-catalog (table)", "not UTF-8")
    assert b"\xff" not in (root / ROWS / "table.rows.txt").read_bytes()  # its own rows kept
    git(root, "config", "--unset", "exobrain.catalog")
    later = invoke(root, ["skills-status", "--all"])
    assert later.code == 0 and later.out == expected and "warning" not in later.err
    user_files_intact(sandbox)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "fields",
    [
        ({"skill:hello@global": {"alice": "up"}}, {}, {}, {}, {}, 1, []),
        ({"skill:hello@global": {"alice": 1 << 2000}}, {}, {}, {}, {}, 1, []),
        ({}, {}, {"skill:hello@global": {"today": 1}}, {}, {}, 1, []),
        ({}, {}, {}, {"skill:hello@global": {1: (1,)}}, {}, 1, []),
        ({}, {}, {}, {}, {"skill:hello@global": {"usd": 5}}, 1, []),
        ({}, {}, {}, {}, {}, 1, [_nested(1500)]),
        ({}, {}, {"skill:hello@global": {1 << 62: 1}}, {}, {}, 1, []),
        ({}, {}, {}, {}, {"skill:hello@global": {("token", 20790): -(1 << 62)}}, 1, []),
        ({}, {}, {"skill:hello@global": {20790: -3}}, {}, {}, 1, []),
    ],
    ids=[
        "vote-as-text",
        "vote-too-big",
        "usage-day-as-text",
        "calibration-cut",
        "fund-key",
        "deep",
        "day-after-9999",
        "negative-fund",
        "negative-uses",
    ],
)
def test_a_signal_cache_of_the_wrong_shape_is_read_again(sandbox, monkeypatch, fields):
    import marshal

    from exobrain.signals.cache import MAGIC

    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    for signal in (
        ["vote", "up"],
        ["rank", "clarity", "0.5"],
        ["usage"],
        ["calibration", "true"],
        ["fund", "5"],
    ):  # every table of the aggregate holds something
        recorded = invoke(
            sandbox.root, ["exobrain", "signal", signal[0], "skill:hello@global", *signal[1:]]
        )
        assert recorded.code == 0, recorded.text
    first = invoke(sandbox.root, ["exobrain", "quality", "--json"])
    [cache] = (sandbox.home / ".cache/exobrain/signals").iterdir()
    data = cache.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    cache.write_bytes(data[: len(MAGIC) + 8 + size] + marshal.dumps(fields))  # the same key
    damaged = invoke(sandbox.root, ["exobrain", "quality", "--json"])
    assert damaged.code == 0 and damaged.out == first.out
    one_warning(damaged, str(cache), "fields of the wrong shape")
    written = cache.stat().st_mtime_ns
    for argv in (["exobrain", "quality", "--json"], ["exobrain", "show", "skill:hello"]):
        again = invoke(sandbox.root, argv)
        assert again.code == 0 and "warning" not in again.err, again.text
    assert cache.stat().st_mtime_ns == written  # the rewritten cache is read, not made again
    user_files_intact(sandbox)


def test_a_usage_hook_cache_of_the_wrong_shape_is_resolved_again(sandbox, monkeypatch):
    import sys

    from exobrain.signals.usage_hook import _cache_path, log_path

    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    payload = json.dumps({"tool_name": "Skill", "tool_input": {"skill": "hello"}})
    hook = [sys.executable, "-m", "exobrain.signals.usage_hook", "--repo", str(sandbox.root)]

    def use() -> None:
        done = subprocess.run(hook, input=payload, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr

    use()
    cache = Path(_cache_path(str(sandbox.root.resolve()), "claude"))
    data = json.loads(cache.read_text())
    cache.write_text(json.dumps({**data, "names": list(data["names"])}))  # stamps still match
    use()
    ledger = sandbox.root / "signals/alice/laptop.jsonl"
    assert [json.loads(line)["kind"] for line in ledger.read_text().splitlines()] == ["usage"] * 2
    log = log_path().read_text().splitlines()
    assert len(log) == 1 and "resolution cache" in log[0] and "of the wrong shape" in log[0]
    assert isinstance(json.loads(cache.read_text())["names"], dict)  # resolved, written anew
    user_files_intact(sandbox)


def test_a_catalog_memo_that_is_not_utf8_is_made_again(sandbox):
    expected = invoke(sandbox.root, ["skills-status", "--all", "--plain"])
    [memo] = (sandbox.root / ".exobrain-cache/catalog").glob("*.plain.txt")
    memo.write_bytes(b"\xff" + memo.read_bytes())
    result = invoke(sandbox.root, ["skills-status", "--all", "--plain"])
    assert result.code == 0 and result.out == expected.out
    one_warning(result, f".exobrain-cache/catalog/{memo.name}", "not UTF-8 (byte 0)")
    assert memo.read_bytes().decode("utf-8") == expected.out.rstrip("\n")
    user_files_intact(sandbox)


# --- folders a member made unreadable ------------------------------------------------------


def as_a_user(test):
    """A permission test: root reads through permission bits, so it runs as a user only
    (``.ci/permissions`` runs it as one when CI is root)."""
    skip = pytest.mark.skipif(os.geteuid() == 0, reason="root reads through permission bits")
    return pytest.mark.permissions(skip(test))


@contextmanager
def unreadable(path: Path) -> Iterator[Path]:
    """``path`` with no permission bits for the block, restored after (tmp_path cleanup)."""
    before = path.stat().st_mode & 0o7777
    path.chmod(0)
    try:
        yield path
    finally:
        path.chmod(before)


@as_a_user
@pytest.mark.parametrize("argv", [["skills-status", "--all"], ["skills-validate"]])
def test_an_unreadable_scope_folder_is_named_and_the_rest_is_read(sandbox, argv):
    build_tree(sandbox.root, {"people/bob/AGENTS.md": "# bob\n", "people/bob/skills.json": "{}"})
    with unreadable(sandbox.root / "people/bob"):
        result = invoke(sandbox.root, argv)
    assert result.code == 2, result.text
    assert "scope-unreadable: people/bob: cannot read folder (Permission denied)" in result.text
    if argv[0] == "skills-status":
        assert "hello" in result.out and "tidy" in result.out  # what could be read, shown
    user_files_intact(sandbox)


@as_a_user
@pytest.mark.parametrize(
    "argv",
    [
        ["skills-status"],
        ["exobrain", "list"],
        ["exobrain", "search", "hello"],
        ["connect-agent", "claude"],
    ],
)
def test_an_unreadable_connected_scope_is_an_error_naming_it(sandbox, argv):
    linked = invoke(sandbox.root, ["connect-agent", "claude"])
    assert linked.code == 0, linked.text
    links = sorted(p.name for p in (sandbox.root / ".claude/skills").iterdir())
    with unreadable(sandbox.root / "people/alice"):
        result = invoke(sandbox.root, argv)
    assert result.code == 2, result.text
    assert "people/alice/AGENTS.md: cannot be read (Permission denied)" in result.err
    assert "fix: give yourself access" in result.err
    assert sorted(p.name for p in (sandbox.root / ".claude/skills").iterdir()) == links
    user_files_intact(sandbox)


@as_a_user
def test_an_unreadable_ledger_folder_leaves_out_its_ledgers_only(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    assert invoke(sandbox.root, ["exobrain", "signal", "usage", "skill:hello@global"]).code == 0
    build_tree(sandbox.root, {"signals/bob/h.jsonl": ""})
    with unreadable(sandbox.root / "signals/alice"):
        quality = invoke(sandbox.root, ["exobrain", "quality", "--json"])
        search = invoke(sandbox.root, ["exobrain", "search", "hello"])
        vote = invoke(sandbox.root, ["exobrain", "signal", "vote", "skill:hello@global", "up"])
    assert (
        quality.code == 0
        and "signals/alice: skipped: cannot read (Permission denied)" in quality.err
    )
    assert search.code == 0 and "1. hello  global" in search.out
    assert vote.code in (1, 2) and "signals/alice" in vote.err and "Permission denied" in vote.err
    with unreadable(sandbox.root / "signals"):
        weights = invoke(sandbox.root, ["exobrain", "quality"])
    assert (
        weights.code == 2
        and "signals/weights.json: cannot be read (Permission denied)" in weights.err
    )
    user_files_intact(sandbox)


@as_a_user
def test_an_unreadable_skill_or_knowledge_folder_is_a_warning(sandbox):
    build_tree(sandbox.root, {"knowledge/guide.md": "# Guide\n\nHow to say hello.\n"})
    with unreadable(sandbox.root / "knowledge"), unreadable(sandbox.root / "skills/world"):
        listed = invoke(sandbox.root, ["exobrain", "list"])
        validate = invoke(sandbox.root, ["skills-validate"])
        site = invoke(sandbox.root, ["exobrain", "site", "-o", str(sandbox.scratch / "site")])
        lock = invoke(sandbox.root, ["exobrain", "lock", "--check"])
    assert listed.code == 0 and "skill:hello@global" in listed.out
    assert "folder-unreadable: knowledge: cannot read folder (Permission denied)" in listed.err
    assert "skills/world: cannot read the folder (Permission denied)" in listed.err
    assert validate.code in (1, 2)
    assert (
        "unsafe-file: skills/world: a folder that cannot be read (Permission denied)"
        in validate.text
    )
    assert site.code == 0 and "skills/world" in site.err
    assert (
        lock.code == 2 and "skills/world/SKILL.md: cannot be read (Permission denied)" in lock.err
    )
    user_files_intact(sandbox)


# --- damaged archives ------------------------------------------------------------------------

_NOISE = random.Random(30)
#: A skill's text that does not compress away (so a cut in its data lands inside it).
SKILL_TEXT = (
    b"---\nname: s\ndescription: Use s for s.\n---\n"
    + bytes(_NOISE.randrange(32, 127) for _ in range(4000))
    + b"\n"
)


def _zip(path: Path, method: int = zipfile.ZIP_STORED) -> bytearray:
    with zipfile.ZipFile(path, "w", compression=method) as handle:
        handle.writestr("s/SKILL.md", SKILL_TEXT)
    return bytearray(path.read_bytes())


def _headers(data: bytearray) -> tuple[int, int]:
    """Where the member's local header and its central directory entry start."""
    return data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")


def bad_crc(path: Path) -> bytes:
    data = _zip(path)
    data[data.index(b"Use s for s.")] ^= 0xFF
    return bytes(data)


def encrypted(path: Path) -> bytes:
    data = _zip(path)
    local, central = _headers(data)
    data[local + 6] |= 1  # the general purpose flags: bit 0, encrypted
    data[central + 8] |= 1
    return bytes(data)


def unknown_method(path: Path) -> bytes:
    data = _zip(path)
    local, central = _headers(data)
    data[local + 8 : local + 10] = struct.pack("<H", 99)
    data[central + 10 : central + 12] = struct.pack("<H", 99)
    return bytes(data)


def truncated(path: Path) -> bytes:
    """The member's data cut short, the central directory moved up to stay readable."""
    data = bytes(_zip(path, zipfile.ZIP_DEFLATED))
    _, central = _headers(bytearray(data))
    cut = bytearray(data[: central - 1000] + data[central:])
    end = cut.index(b"PK\x05\x06")
    offset = struct.unpack("<I", cut[end + 16 : end + 20])[0]
    cut[end + 16 : end + 20] = struct.pack("<I", offset - 1000)
    return bytes(cut)


def bad_deflate(path: Path) -> bytes:
    data = _zip(path, zipfile.ZIP_DEFLATED)
    local, _ = _headers(data)
    start = local + 30 + struct.unpack("<H", data[local + 26 : local + 28])[0]
    data[start + 5 : start + 40] = b"\xff" * 35
    return bytes(data)


@pytest.mark.parametrize(
    "damage, words",
    [
        (bad_crc, "its checksum does not match its data (the archive is damaged)"),
        (encrypted, "is encrypted (it needs a password)"),
        (unknown_method, "is compressed with method 99, which cannot be read here"),
        (truncated, "its data is cut short (the archive is truncated)"),
        (bad_deflate, "its compressed data is damaged"),
    ],
    ids=["bad-crc", "encrypted", "unknown-method", "truncated", "bad-deflate"],
)
def test_a_damaged_archive_is_refused_with_its_path_and_what_is_wrong(sandbox, damage, words):
    archive = sandbox.scratch / "damaged.skill"
    archive.write_bytes(damage(archive))
    result = invoke(sandbox.root, ["exobrain", "import", str(archive)])
    assert result.code == 2, result.text
    assert f"error: {archive}: entry 's/SKILL.md'" in result.err and words in result.err
    assert "refusing the archive, nothing was kept" in result.err
    assert not (sandbox.root / "people/alice/skills/s").exists()
    assert not [p for p in (sandbox.root / "people/alice").rglob("*") if "exobrain" in p.name]
    user_files_intact(sandbox)
