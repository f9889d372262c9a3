"""``exobrain publish-catalog``: the catalog's rows at HEAD on a branch of their own, and a fresh
clone's first ``skills-status --all`` patched from them (:mod:`exobrain.catalog.publish`) —
byte for byte a full render, and taken only from the branch the clone names."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.catalog import answer, kept, patch, publish
from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.umbrella import main as exobrain_cmd
from tests.support.helpers import git
from tests.support.sparse import full_clone, origin, sparse_clone

CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]
ROWS = ".exobrain-cache/catalog/rows"


def run(command, root: Path, *args: str):
    return CliRunner().invoke(command, [*args, "--repo", str(root)])


def catalog(root: Path, *args: str) -> str:
    result = run(status_cmd, root, "--all", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def full_render(root: Path, *args: str) -> str:
    """The catalog with no rows kept and none published (all put back after)."""
    kept, aside = root / ROWS, root / (ROWS + ".aside")
    if kept.exists():
        kept.rename(aside)
    named = _config(root, "--get", "exobrain.catalog").strip()
    _config(root, "--unset", "exobrain.catalog")
    try:
        return catalog(root, *args)
    finally:
        shutil.rmtree(kept, ignore_errors=True)
        if aside.exists():
            aside.rename(kept)
        if named:
            git(root, "config", "exobrain.catalog", named)


def _config(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "config", *args], capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def taken(monkeypatch) -> list[tuple[bool, bool]]:
    """(published rows taken, catalog patched) for each run that looked for them."""
    seen: list[tuple[bool, bool]] = []
    real_adopt, real_patched = publish.adopt, patch.patched
    state = {"adopted": False}

    def adopt(*args, **kwargs):
        state["adopted"] = real_adopt(*args, **kwargs)
        return state["adopted"]

    def patched(*args, **kwargs):
        done = real_patched(*args, **kwargs)
        seen.append((state["adopted"], done is not None))
        state["adopted"] = False
        return done

    monkeypatch.setattr(answer, "adopt", adopt)
    monkeypatch.setattr(answer, "patched", patched)
    return seen


def published_origin(tmp_path: Path) -> tuple[Path, Path]:
    """An origin whose catalog CI published from a clean full clone, and that clone."""
    bare = origin(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    done = run(exobrain_cmd, work, "publish-catalog", "--json")
    assert done.exit_code == 0, done.output
    info = json.loads(done.stdout)
    assert info["branch"] == "exobrain-catalog"
    assert info["head"] == git(work, "rev-parse", "HEAD").strip()
    git(work, "push", "-q", "--force", "origin", "exobrain-catalog")
    return bare, work


def fresh_clone(bare: Path, dest: Path, *, named: bool = True) -> Path:
    root = sparse_clone(bare, dest)
    assert run(connect_cmd, root, *CONNECT).exit_code == 0
    if named:
        git(root, "config", "exobrain.catalog", "origin/exobrain-catalog")
    return root


@pytest.mark.parametrize("args", [[], ["--plain"], ["--json"]])
def test_a_fresh_clone_starts_from_the_published_rows(tmp_path, taken, args):
    bare, work = published_origin(tmp_path)
    # the origin moves on after publishing: the clone patches for that too
    registry = work / "people/p0003/skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append({"name": "late", "owner": "p0003", "tier": "optional"})
    registry.write_text(json.dumps(data, indent=2) + "\n")
    git(work, "commit", "-q", "-am", "late")
    git(work, "push", "-q", "origin", "HEAD:main")
    root = fresh_clone(bare, tmp_path / "clone")
    shutil.rmtree(root / "people/p0001")  # in the cone, gone from the disk: not listed
    first = catalog(root, *args)
    assert taken == [(True, True)]
    assert "p0001-skill" not in first
    assert "late" in first
    assert first == full_render(root, *args)
    assert catalog(root, *args) == first  # then its own kept rows
    assert taken[-1] == (False, True)


def test_published_rows_are_taken_only_from_a_named_branch(tmp_path, taken):
    bare, _ = published_origin(tmp_path)
    root = fresh_clone(bare, tmp_path / "clone", named=False)
    assert catalog(root) == full_render(root)
    assert taken == []  # nothing to patch from: rendered in full
    git(root, "config", "exobrain.catalog", "origin/no-such-branch")
    shutil.rmtree(root / ROWS)
    assert catalog(root) == full_render(root)
    assert taken == []


def test_rows_of_another_format_are_ignored(tmp_path, taken, monkeypatch):
    bare, _ = published_origin(tmp_path)
    root = fresh_clone(bare, tmp_path / "clone")
    monkeypatch.setattr(kept, "STORE_VERSION", kept.STORE_VERSION + 1)
    assert catalog(root, "--plain") == full_render(root, "--plain")
    assert taken == []


def test_publishing_refuses_what_would_not_be_heads_catalog(tmp_path):
    bare = origin(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    (work / "people/p0002/skills.json").write_text('{"skills": []}\n')
    dirty = run(exobrain_cmd, work, "publish-catalog")
    assert dirty.exit_code == 2 and "differs from HEAD" in dirty.output
    git(work, "checkout", "-q", "--", "people/p0002/skills.json")
    current = run(exobrain_cmd, work, "publish-catalog", "--branch", "main")
    assert current.exit_code == 2 and "checked out here" in current.output
    git(work, "branch", "-q", "feature")
    taken_branch = run(exobrain_cmd, work, "publish-catalog", "--branch", "feature")
    assert taken_branch.exit_code == 2 and "not overwritten" in taken_branch.output
    assert git(work, "rev-parse", "feature").strip() == git(work, "rev-parse", "main").strip()
    again = [run(exobrain_cmd, work, "publish-catalog") for _ in range(2)]
    assert all(r.exit_code == 0 for r in again)  # its own branch is replaced
    tip = git(work, "rev-parse", "exobrain-catalog").strip()
    assert git(work, "rev-list", "--count", tip).strip() == "1"  # no history
    assert sorted(git(work, "ls-tree", "--name-only", tip).split()) == sorted(
        f"{kind}.{part}"
        for kind in ("json", "plain", "table")
        for part in ("index.bin", "meta.json", "offsets.bin", "rows.txt", "scopes.txt")
    )
