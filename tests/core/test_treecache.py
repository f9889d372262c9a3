"""The cache of what was read from git (``.exobrain-cache/committed.json`` and the descriptions
beside it): a second run reads only what changed, a command reads the descriptions only when
it shows them, and a cache that is broken, of the wrong shape or committed by someone is
ignored, never believed."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain import treecache
from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.validate import main as validate_cmd
from exobrain.committed import CommittedTree
from exobrain.treecache import CACHE_FILE, CACHE_VERSION, DESCRIPTIONS_FILE
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
    shutil.rmtree(root / ".exobrain-cache" / "catalog", ignore_errors=True)
    shutil.rmtree(root / ".exobrain-cache" / "catalog-rows", ignore_errors=True)
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


def test_descriptions_are_read_only_by_a_command_that_shows_them(clone, monkeypatch):
    root, _ = clone
    folder = root / ".exobrain-cache"
    stored = json.loads((folder / DESCRIPTIONS_FILE).read_text(encoding="utf-8"))
    assert stored["version"] == CACHE_VERSION
    assert len(stored["descriptions"]) == SHAPE.total_skills - 10  # all but the cone's 10
    assert "descriptions" not in json.loads((folder / CACHE_FILE).read_text(encoding="utf-8"))
    read: list[str] = []
    real = treecache._read

    def spy(root: Path, name: str):
        read.append(name)
        return real(root, name)

    monkeypatch.setattr(treecache, "_read", spy)
    CliRunner().invoke(validate_cmd, ["--repo", str(root)])
    assert read == [CACHE_FILE]
    read.clear()
    (folder / DESCRIPTIONS_FILE).write_text("{not json", encoding="utf-8")
    rows = catalog(root)
    assert read == [CACHE_FILE, DESCRIPTIONS_FILE]
    assert all(r["description"] for r in rows)  # read from git again, the file rewritten
    assert json.loads((folder / DESCRIPTIONS_FILE).read_text(encoding="utf-8")) == stored


def _without_tier(data: dict) -> str:
    """The cache with p0003's registry's first entry lacking its tier (making a row of it
    would fail)."""
    _, scopes = data["units"]["people/p0003"]
    blob = next(registry for path, _, registry, *_ in scopes if path == "people/p0003")
    del data["registries"][blob][0]["tier"]
    return json.dumps(data)


@pytest.mark.parametrize(
    "broken",
    [
        lambda data: "{not json",
        lambda data: json.dumps({**data, "version": CACHE_VERSION - 1, "units": {}}),
        lambda data: json.dumps({**data, "units": []}),
        _without_tier,
    ],
    ids=["not-json", "old-version", "units-not-a-map", "entry-without-tier"],
)
def test_a_broken_cache_is_ignored_and_rewritten(clone, broken):
    root, _ = clone
    expected = catalog(root)
    cache = root / ".exobrain-cache" / CACHE_FILE
    cache.write_text(broken(json.loads(cache.read_text(encoding="utf-8"))), encoding="utf-8")
    assert catalog(root) == expected
    assert json.loads(cache.read_text(encoding="utf-8"))["version"] == CACHE_VERSION


@pytest.mark.parametrize(
    "row",
    [["people/p0003", "person"], ["people/p0003", "person", None, ["p0003-skill-0"], []]],
    ids=["too-short", "a-name-without-its-blob"],
)
def test_a_unit_of_the_wrong_shape_is_listed_again(clone, row):
    root, _ = clone
    expected = catalog(root)
    cache = root / ".exobrain-cache" / CACHE_FILE
    data = json.loads(cache.read_text(encoding="utf-8"))
    tree, _ = data["units"]["people/p0003"]
    data["units"]["people/p0003"] = [tree, [row]]
    cache.write_text(json.dumps(data), encoding="utf-8")
    assert catalog(root) == expected


def test_a_cache_git_tracks_is_not_believed(tmp_path):
    bare = origin(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    tree = git(work, "rev-parse", "HEAD:people/p0003").strip()
    lie = {  # p0003 and its hosts declare nothing, says the committed cache
        "version": CACHE_VERSION,
        "units": {"people/p0003": [tree, [["people/p0003", "person", None, [], []]]]},
        "registries": {},
        "descriptions": {},
    }
    (work / ".exobrain-cache").mkdir()
    (work / ".exobrain-cache" / CACHE_FILE).write_text(json.dumps(lie), encoding="utf-8")
    git(work, "add", "-f", ".exobrain-cache")
    git(work, "commit", "-q", "-m", "a cache someone committed")
    git(work, "push", "-q", "origin", "HEAD:main")
    root = sparse_clone(bare, tmp_path / "clone")
    invoke(connect_cmd, root, *CONNECT)
    scopes = {r["scope"] for r in catalog(root)}
    assert {"people/p0003", "people/p0003/hosts/h0", "people/p0003/hosts/h1"} <= scopes
