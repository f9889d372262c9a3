"""``skills-status --all`` prints its memo only while nothing the catalog reads has changed
(exobrain.catalog.memo): every change of a registry, a description, a scope or (sparse) the
commit shows in the next run; answers with findings and terminals are never memoised."""

import json
import os
from pathlib import Path

from click.testing import CliRunner

from exobrain.cli.status import main as status
from tests.support.helpers import build_tree, exobrain, skill_md

ENTRY = {"name": "tidy", "owner": "acme", "tier": "optional"}


def catalog(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(status, ["--repo", str(root), "--all", *args])
    return result.exit_code, result.stdout, result.stderr


def memos(root: Path) -> list[str]:
    folder = root / ".exobrain-cache" / "catalog"
    return sorted(p.name.split(".", 1)[1] for p in folder.iterdir()) if folder.is_dir() else []


def sample(tmp_path: Path) -> Path:
    return exobrain(
        tmp_path / "x",
        registries={"groups/acme": [ENTRY]},
        scopes=["groups/acme"],
        skills={"groups/acme/tidy": skill_md("tidy", "Tidy the desk.")},
    )


def test_a_second_run_prints_the_memo_and_each_variant_has_its_own(tmp_path):
    root = sample(tmp_path)
    first = catalog(root)
    assert first[0] == 0 and "Tidy the desk." in first[1]
    assert memos(root) == ["table.txt"]
    memo = next((root / ".exobrain-cache/catalog").iterdir())
    memo.write_text(memo.read_text().replace("Tidy the desk.", "FROM THE MEMO"))
    assert "FROM THE MEMO" in catalog(root)[1]  # read back, not worked out again
    as_json = catalog(root, "--json")
    assert json.loads(as_json[1])["skills"][0]["description"] == "Tidy the desk."
    catalog(root, "--plain", "--tier", "optional")
    assert memos(root) == ["json.txt", "plain-optional.txt", "table.txt"]


def test_every_input_change_shows_in_the_next_run(tmp_path):
    root = sample(tmp_path)
    catalog(root)
    skill = root / "groups/acme/skills/tidy/SKILL.md"
    skill.write_text(skill_md("tidy", "Tidy the whole office."))
    assert "Tidy the whole office." in catalog(root)[1]
    registry = root / "groups/acme/skills.json"
    registry.write_text(json.dumps({"skills": [ENTRY, {**ENTRY, "name": "sweep"}]}))
    assert "sweep" in catalog(root)[1]
    build_tree(root, {"people/bob/AGENTS.md": "# bob\n", "people/bob/skills.json": {"skills": []}})
    build_tree(root, {"people/bob/skills.json": {"skills": [{**ENTRY, "name": "bobs"}]}})
    assert "people/bob" in catalog(root)[1]
    build_tree(root, {"groups/acme/skills/sweep/SKILL.md": skill_md("sweep", "Sweep floors.")})
    out = catalog(root)[1]
    assert "Sweep floors." in out
    assert len(memos(root)) == 1  # the memos of older keys are gone


def test_an_answer_with_findings_is_not_memoised(tmp_path):
    root = sample(tmp_path)
    (root / "groups/acme/skills.json").write_text("{broken")
    first = catalog(root)
    assert first[0] == 2 and "skills.json" in first[2]
    assert memos(root) == []
    assert catalog(root)[2] == first[2]  # reported again, not replayed from a memo


def test_a_memo_that_is_a_link_is_ignored(tmp_path):
    root = sample(tmp_path)
    catalog(root)
    memo = next((root / ".exobrain-cache/catalog").iterdir())
    fake = tmp_path / "fake.txt"
    fake.write_text("FAKE")
    memo.unlink()
    os.symlink(fake, memo)
    assert "FAKE" not in catalog(root)[1]


def test_the_collections_of_scopes_json_are_part_of_the_key(tmp_path):
    """A collection that lies wholly outside a sparse checkout changes nothing on the disk, so
    the key must name the collections themselves."""
    from exobrain.catalog.memo import catalog_key
    from exobrain.workspace import open_workspace

    root = sample(tmp_path)
    before = catalog_key(open_workspace(root))
    kinds = [("groups", "group"), ("teams", "team"), ("people", "person"), ("hosts", "host")]
    folders = [{"folder": f, "type": t} for f, t in [*kinds, ("labs", "lab")]]
    (root / "scopes.json").write_text(json.dumps({"collections": folders}), encoding="utf-8")
    assert not (root / "labs").exists()
    assert catalog_key(open_workspace(root)) != before
