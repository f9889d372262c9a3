"""The cache of what was read from git (``.exobrain-cache/tree/``, three maps in shards): a
second run reads only what changed and rewrites only the shards that did, a command reads the
descriptions only when it shows them, and a cache that is broken, of the wrong shape or
committed by someone is ignored, never believed."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.validate import main as validate_cmd
from exobrain.sparse import treecache
from exobrain.sparse.committed import CommittedTree
from exobrain.sparse.treecache import (
    CACHE_VERSION,
    DESCRIPTIONS,
    REGISTRIES,
    SHARDS,
    UNITS,
    shard_file,
    shard_of,
)
from exobrain.util.repository import Repository
from tests.support.helpers import git
from tests.support.sparse import SHAPE, full_clone, origin, push_change, sparse_clone

CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]


def invoke(command, root: Path, *args: str):
    result = CliRunner().invoke(command, [*args, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return result


def catalog(root: Path) -> list[dict]:
    """The catalog worked out from the registries (the memo of what was printed and the rows
    kept for patching are removed first: these tests are about the cache it is made from)."""
    shutil.rmtree(root / ".exobrain-cache" / "catalog", ignore_errors=True)  # memo and rows
    return json.loads(invoke(status_cmd, root, "--all", "--json").stdout)["skills"]


@pytest.fixture
def clone(tmp_path) -> tuple[Path, Path]:
    """A connected sparse clone whose cache holds the whole repository, and its origin."""
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    invoke(connect_cmd, root, *CONNECT)
    assert len(catalog(root)) == SHAPE.total_skills
    return root, bare


def test_a_second_run_reads_only_what_changed(clone, tmp_path, monkeypatch):
    root, bare = clone
    work = full_clone(bare, tmp_path / "work")
    extra = {"name": "late", "owner": "p0003", "tier": "optional"}
    push_change(work, "people/p0003/skills.json", lambda entries: [*entries, extra])
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    listed: list[list[str]] = []
    read: list[str] = []
    real_list, real_blobs = CommittedTree._list, Repository.stream_blobs

    def spy_list(self, units, collections):
        listed.append(sorted(units))
        return real_list(self, units, collections)

    def spy_blobs(self, oids, **kwargs):
        oids = list(oids)
        read.extend(oids)
        return real_blobs(self, oids, **kwargs)

    monkeypatch.setattr(CommittedTree, "_list", spy_list)
    monkeypatch.setattr(Repository, "stream_blobs", spy_blobs)
    rows = catalog(root)
    assert len(rows) == SHAPE.total_skills + 1
    assert {"name": "late", "scope": "people/p0003"}.items() <= {
        k: v for r in rows if r["name"] == "late" for k, v in r.items()
    }.items()
    assert listed == [["people/p0003"]]  # the one unit whose tree changed
    assert read == [git(root, "rev-parse", "HEAD:people/p0003/skills.json").strip()]
    listed.clear(), read.clear()
    assert catalog(root) == rows
    assert listed == [] and read == []  # nothing changed: nothing read from git


def test_scopes_whose_registries_are_the_same_blob_each_get_theirs(clone, tmp_path):
    root, bare = clone
    work = full_clone(bare, tmp_path / "work")
    twin = [{"name": "twin", "owner": "p0000", "tier": "optional"}]
    for person in ("p0002", "p0003"):
        push_change(work, f"people/{person}/skills.json", lambda entries: twin)
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    blobs = {git(root, "rev-parse", f"HEAD:people/{p}/skills.json") for p in ("p0002", "p0003")}
    assert len(blobs) == 1  # one blob, read once, parsed for each of the two scopes
    rows = [r for r in catalog(root) if r["registry"] in ("people/p0002", "people/p0003")]
    assert sorted((r["name"], r["registry"]) for r in rows) == [
        ("twin", "people/p0002"),
        ("twin", "people/p0003"),
    ]


def stored(root: Path, kind: str) -> dict:
    """A map of the cache, from its shards."""
    found: dict = {}
    for shard in range(SHARDS):
        path = shard_file(root, kind, shard)
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            assert data["version"] == CACHE_VERSION and list(data) == ["version", kind]
            found.update(data[kind])
    return found


def test_descriptions_are_read_only_by_a_command_that_shows_them(clone, monkeypatch):
    root, _ = clone
    descriptions = stored(root, DESCRIPTIONS)
    assert len(descriptions) == SHAPE.total_skills - 10  # all but the cone's 10
    read: list[str] = []
    real = treecache._read_shard

    def spy(root: Path, kind: str, shard: int):
        read.append(kind)
        return real(root, kind, shard)

    monkeypatch.setattr(treecache, "_read_shard", spy)
    CliRunner().invoke(validate_cmd, ["--repo", str(root)])
    assert set(read) == {UNITS, REGISTRIES}
    read.clear()
    broken = shard_file(root, DESCRIPTIONS, shard_of(DESCRIPTIONS, next(iter(descriptions))))
    broken.write_text("{not json", encoding="utf-8")
    rows = catalog(root)
    assert set(read) == {UNITS, REGISTRIES, DESCRIPTIONS}
    assert all(r["description"] for r in rows)  # read from git again, the shards rewritten
    assert stored(root, DESCRIPTIONS) == descriptions


def test_a_second_run_rewrites_only_the_shards_that_changed(clone, tmp_path):
    root, bare = clone
    work = full_clone(bare, tmp_path / "work")
    extra = {"name": "late", "owner": "p0003", "tier": "optional"}
    push_change(work, "people/p0003/skills.json", lambda entries: [*entries, extra])
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    files = sorted((root / ".exobrain-cache/tree").iterdir())
    before = {f.name: f.stat().st_mtime_ns for f in files}
    catalog(root)
    after = {f.name: f.stat().st_mtime_ns for f in (root / ".exobrain-cache/tree").iterdir()}
    rewritten = sorted(name for name in after if after[name] != before.get(name))
    blob = git(root, "rev-parse", "HEAD:people/p0003/skills.json").strip()
    assert shard_file(root, UNITS, shard_of(UNITS, "people/p0003")).name in rewritten
    assert shard_file(root, REGISTRIES, shard_of(REGISTRIES, blob)).name in rewritten
    assert len(rewritten) <= 3  # the unit's, the new registry's and the old one's


def _without_tier(root: Path) -> None:
    """p0003's registry's first cached entry without its tier (making a row of it would
    fail)."""
    tree_value = stored(root, UNITS)["people/p0003"]
    blob = next(registry for path, _, registry, *_ in tree_value[1] if path == "people/p0003")
    path = shard_file(root, REGISTRIES, shard_of(REGISTRIES, blob))
    data = json.loads(path.read_text(encoding="utf-8"))
    del data[REGISTRIES][blob][0]["tier"]
    path.write_text(json.dumps(data), encoding="utf-8")


def _rewrite_units_shard(root: Path, edit) -> None:
    path = shard_file(root, UNITS, shard_of(UNITS, "people/p0003"))
    path.write_text(edit(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")


@pytest.mark.parametrize(
    "broken",
    [
        lambda root: _rewrite_units_shard(root, lambda data: "{not json"),
        lambda root: _rewrite_units_shard(
            root, lambda data: json.dumps({**data, "version": CACHE_VERSION - 1})
        ),
        lambda root: _rewrite_units_shard(root, lambda data: json.dumps({**data, UNITS: []})),
        _without_tier,
    ],
    ids=["not-json", "old-version", "units-not-a-map", "entry-without-tier"],
)
def test_a_broken_cache_is_ignored_and_rewritten(clone, broken):
    root, _ = clone
    expected = catalog(root)
    broken(root)
    assert catalog(root) == expected
    assert "people/p0003" in stored(root, UNITS)  # readable again


@pytest.mark.parametrize(
    "row",
    [["people/p0003", "person"], ["people/p0003", "person", None, ["p0003-skill-0"], []]],
    ids=["too-short", "a-name-without-its-blob"],
)
def test_a_unit_of_the_wrong_shape_is_listed_again(clone, row):
    root, _ = clone
    expected = catalog(root)

    def edit(data: dict) -> str:
        tree, _ = data[UNITS]["people/p0003"]
        data[UNITS]["people/p0003"] = [tree, [row]]
        return json.dumps(data)

    _rewrite_units_shard(root, edit)
    assert catalog(root) == expected


def test_a_cache_git_tracks_is_not_believed(tmp_path):
    bare = origin(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    tree = git(work, "rev-parse", "HEAD:people/p0003").strip()
    lie = {  # p0003 and its hosts declare nothing, says the committed cache
        "version": CACHE_VERSION,
        UNITS: {"people/p0003": [tree, [["people/p0003", "person", None, [], []]]]},
    }
    path = shard_file(work, UNITS, shard_of(UNITS, "people/p0003"))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(lie), encoding="utf-8")
    git(work, "add", "-f", ".exobrain-cache")
    git(work, "commit", "-q", "-m", "a cache someone committed")
    git(work, "push", "-q", "origin", "HEAD:main")
    root = sparse_clone(bare, tmp_path / "clone")
    invoke(connect_cmd, root, *CONNECT)
    scopes = {r["scope"] for r in catalog(root)}
    assert {"people/p0003", "people/p0003/hosts/h0", "people/p0003/hosts/h1"} <= scopes
