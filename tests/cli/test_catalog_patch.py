"""``skills-status --all`` in a sparse clone, patched for what changed since the last run
(:mod:`exobrain.catalog.patch`): whatever changed — pulled commits adding, removing and
editing declarations, SKILL.md files, scopes and people, or edits on the disk — the patched
text is byte for byte what a full render prints, in every output variant."""

import json
import random
import shutil
from pathlib import Path

import pytest

from benchmarks.synthetic import Shape
from exobrain.catalog import answer, patch
from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from tests.support.helpers import git
from tests.support.sparse import full_clone, origin, sparse_clone

SHAPE = Shape(groups=3, people=8, hosts=2, per_scope=2, global_skills=4, ledger_every=1)
CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]
VARIANTS = [[], ["--json"], ["--plain"], ["--tier", "optional"], ["--json", "--tier", "always"]]
ROWS = ".exobrain-cache/catalog/rows"


def catalog(root: Path, *args: str) -> str:
    from click.testing import CliRunner

    result = CliRunner().invoke(status_cmd, ["--all", *args, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return result.stdout


def full_render(root: Path, *args: str) -> str:
    """What the catalog prints with no kept rows (they are put back after, untouched)."""
    kept, aside = root / ROWS, root / (ROWS + ".aside")
    kept.rename(aside)
    try:
        return catalog(root, *args)
    finally:
        shutil.rmtree(kept, ignore_errors=True)
        aside.rename(kept)


@pytest.fixture
def patches(monkeypatch) -> list[bool]:
    """Whether each run's catalog came from kept rows (True) or a full render."""
    seen: list[bool] = []
    real = patch.patched

    def spy(*args, **kwargs):
        done = real(*args, **kwargs)
        seen.append(done is not None)
        return done

    monkeypatch.setattr(answer, "patched", spy)
    return seen


def connected(tmp_path: Path) -> tuple[Path, Path]:
    from click.testing import CliRunner

    bare = origin(tmp_path, SHAPE)
    root = sparse_clone(bare, tmp_path / "clone")
    done = CliRunner().invoke(connect_cmd, [*CONNECT, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    return root, full_clone(bare, tmp_path / "work")


def _registry(work: Path, scope: str) -> Path:
    return work / scope / "skills.json"


def _edit(path: Path, edit) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["skills"] = edit(data["skills"])
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _random_change(work: Path, rng: random.Random, step: int) -> str:
    """One change a teammate could push, in a random scope outside p0001's cone."""
    person = f"p{rng.choice([0, 2, 3, 4, 5, 6, 7]):04d}"
    scope = rng.choice([f"people/{person}", f"people/{person}/hosts/h{rng.randint(0, 1)}"])
    kind = rng.choice(["add", "remove", "tier", "describe", "drop-host", "new-person", "global"])
    if kind == "drop-host" and (work / f"people/{person}/hosts/h0").is_dir():
        shutil.rmtree(work / f"people/{person}/hosts/h0")
    elif kind == "new-person":
        new = work / f"people/p{90 + step:04d}"
        (new / "skills" / f"nw{step}").mkdir(parents=True)
        (new / "AGENTS.md").write_text("# new\n")
        (new / "skills" / f"nw{step}" / "SKILL.md").write_text(
            f"---\nname: nw{step}\ndescription: New person {step}.\n---\n# nw\n"
        )
        (new / "skills.json").write_text(
            json.dumps({"skills": [{"name": f"nw{step}", "owner": "p9", "tier": "optional"}]})
        )
    elif kind == "global":
        _edit(
            work / "skills.json",
            lambda e: [*e, {"name": f"gl{step}", "owner": "p0000", "tier": "optional"}],
        )
    elif not _registry(work, scope).is_file():
        return "none"
    elif kind == "add":
        _edit(
            _registry(work, scope),
            lambda e: [*e, {"name": f"ad{step}", "owner": person, "tier": "always"}],
        )
    elif kind == "remove":
        _edit(_registry(work, scope), lambda e: e[1:])
    elif kind == "tier":
        _edit(
            _registry(work, scope),
            lambda e: [{**x, "tier": "optional"} if "from" not in x else x for x in e],
        )
    elif kind == "describe":
        for skill in sorted((work / scope / "skills").glob("*/SKILL.md"))[:1]:
            text = skill.read_text().replace("description: ", f"description: Step {step}; ", 1)
            skill.write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "-q", "--allow-empty", "-m", f"{kind} in {scope}")
    return kind


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_patched_catalog_is_the_full_render(tmp_path, patches, monkeypatch, seed):
    if seed == 2:  # kept rows rewritten after every change, not only after many
        monkeypatch.setattr(patch, "REWRITE_AFTER", 1)
    root, work = connected(tmp_path)
    for args in VARIANTS:
        catalog(root, *args)  # the first run keeps the rows
    rng = random.Random(seed)
    for step in range(5):
        for _ in range(rng.randint(1, 3)):
            _random_change(work, rng, step)
        git(work, "push", "-q", "origin", "HEAD:main")
        git(root, "pull", "-q", "--no-rebase", "origin", "main")
        local = root / "people/p0077"  # a scope made on the disk, outside the cone
        if step == 1:
            (local / "skills/lo").mkdir(parents=True)
            (local / "AGENTS.md").write_text("# mine\n")
            (local / "skills/lo/SKILL.md").write_text("---\nname: lo\ndescription: L.\n---\n")
            (local / "skills.json").write_text(
                json.dumps({"skills": [{"name": "lo", "owner": "p0077", "tier": "optional"}]})
            )
        if step == 3:  # gone again; and an edit on the disk, in the cone, not committed
            shutil.rmtree(local)
            _edit(
                _registry(root, "people/p0001"),
                lambda e: [*e, {"name": "mine", "owner": "p0001", "tier": "always"}],
            )
        for args in VARIANTS:
            patched = catalog(root, *args)
            assert patched == full_render(root, *args), (step, args)
    assert "mine" in catalog(root, "--plain")
    assert sum(patches) >= 15, patches  # most runs were patches (a wider column is not)


def test_rows_are_patched_after_a_pull(tmp_path, patches):
    root, work = connected(tmp_path)
    before = catalog(root, "--plain")
    assert patches == []  # nothing kept yet: rendered in full
    _edit(
        _registry(work, "people/p0003"),
        lambda e: [*e, {"name": "newcomer", "owner": "p0003", "tier": "optional"}],
    )
    git(work, "commit", "-q", "-am", "newcomer")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    after = catalog(root, "--plain")
    assert patches == [True]
    assert "newcomer\tpeople/p0003" in after and "newcomer" not in before
    assert after == full_render(root, "--plain")


def test_a_wider_column_renders_in_full(tmp_path, patches):
    root, work = connected(tmp_path)
    catalog(root)
    long_name = "a-skill-name-longer-than-any-the-catalog-has-listed-so-far"
    _edit(
        _registry(work, "people/p0003"),
        lambda e: [*e, {"name": long_name, "owner": "p0003", "tier": "optional"}],
    )
    git(work, "commit", "-q", "-am", "long")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    patches.clear()
    wide = catalog(root)
    assert patches == [False] and long_name in wide
    assert wide == full_render(root)


def test_kept_rows_copied_or_edited_are_not_trusted(tmp_path, patches):
    root, _ = connected(tmp_path)
    honest = catalog(root, "--plain")
    rows = root / ROWS / "plain.rows.txt"
    forged = rows.read_bytes().replace(b"group-001-skill-0", b"forged-skill-0000", 1)
    assert forged != rows.read_bytes()
    copy = rows.with_suffix(".new")
    copy.write_bytes(forged)  # a file of the same size, as a commit or a copy would bring
    copy.replace(rows)
    patches.clear()
    assert catalog(root, "--plain") == honest
    assert patches == []  # the rows were refused before any patching was tried


def test_a_broken_registry_is_reported_not_patched_over(tmp_path, patches):
    root, work = connected(tmp_path)
    catalog(root)
    (work / "people/p0003/skills.json").write_text("{ not json")
    git(work, "commit", "-q", "-am", "broken")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    from click.testing import CliRunner

    patches.clear()
    result = CliRunner().invoke(status_cmd, ["--all", "--repo", str(root)])
    assert result.exit_code == 2
    assert "people/p0003/skills.json" in result.output
    assert patches == [False]  # a finding: rendered in full, and reported


def test_kept_rows_behind_a_link_are_neither_read_nor_written(tmp_path, patches):
    root, _ = connected(tmp_path)
    honest = catalog(root, "--plain")
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(root / ROWS, elsewhere)
    shutil.rmtree(root / ROWS)
    (root / ROWS).symlink_to(elsewhere, target_is_directory=True)
    before = {p.name: p.stat().st_mtime_ns for p in elsewhere.iterdir()}
    assert catalog(root, "--plain") == honest
    assert patches == []  # refused: not a real folder of the cache
    assert {p.name: p.stat().st_mtime_ns for p in elsewhere.iterdir()} == before
