"""Issue 17, item 2: exobrain move REF --to SCOPE and exobrain remove REF."""

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.cli.validate import main as validate
from tests.support.helpers import build_tree, exobrain, git, skill_md

TIDY = {"name": "tidy", "owner": "dana", "tier": "optional", "notes": "sorts imports"}


def run(root, *args):
    result = CliRunner().invoke(main, [*args, "--repo", str(root)])
    return result.exit_code, result.output


def registry(root, scope):
    return json.loads((root / scope / "skills.json").read_text())["skills"]


def clean(root):
    """skills-validate --strict and exobrain lock --check both pass."""
    check = CliRunner().invoke(validate, ["--strict", "--repo", str(root)])
    assert check.exit_code == 0, check.output
    code, out = run(root, "lock", "--check")
    assert code == 0, out


@pytest.fixture
def repo(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "people/dana": [TIDY],
            "people/bob": [{"name": "tidy", "from": "people/dana", "tier": "always"}],
            "people/carol": [
                {"name": "tidy", "from": "people/dana", "tier": "off"},
                {"name": "tidy", "from": "groups/acme", "tier": "unlisted"},
            ],
        },
        scopes=["groups/acme", "people/dana", "people/bob", "people/carol"],
        skills={"people/dana/tidy": skill_md("tidy", version="1.0.0")},
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )
    build_tree(root, {"people/dana/skills/tidy/helper.py": "print('tidy')\n"})
    assert run(root, "lock")[0] == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tidy")
    return root


def test_move_takes_folder_declaration_overrides_and_lock_along(repo):
    locked = json.loads((repo / "people/dana/skills.lock.json").read_text())["skills"]["tidy"]
    code, out = run(repo, "move", "skill:tidy@people/dana", "--to", "groups/acme")
    assert code == 0, out
    assert out.startswith("moved skill:tidy@people/dana → skill:tidy@groups/acme\n")
    assert not (repo / "people/dana/skills/tidy").exists()
    assert (repo / "groups/acme/skills/tidy/helper.py").read_text() == "print('tidy')\n"
    staged = git(repo, "diff", "--cached", "--name-status", "-M").splitlines()
    assert "R100\tpeople/dana/skills/tidy/helper.py\tgroups/acme/skills/tidy/helper.py" in staged
    assert registry(repo, "people/dana") == []
    assert registry(repo, "groups/acme") == [TIDY]  # every field kept
    assert registry(repo, "people/bob") == [
        {"name": "tidy", "from": "groups/acme", "tier": "always"}
    ]
    assert registry(repo, "people/carol") == [
        {"name": "tidy", "from": "groups/acme", "tier": "unlisted"}
    ]  # an override of the new home was there already: the old one is dropped
    assert "override people/bob/skills.json #0: from people/dana → groups/acme" in out
    assert "override people/carol/skills.json #0: dropped" in out
    lock = json.loads((repo / "groups/acme/skills.lock.json").read_text())["skills"]
    assert lock == {"tidy": locked}
    assert json.loads((repo / "people/dana/skills.lock.json").read_text())["skills"] == {}
    assert (
        "authoring-review: skill:tidy@groups/acme counts as new (moved from a person scope: a "
        "widening of reach) and has no proof yet" in out
    )
    clean(repo)


def test_move_names_the_proof_it_finds_for_the_gate(repo):
    tests = {"tests/test_tidy.py": "def test_it():\n    assert True\n", "latest.txt": "notes"}
    build_tree(repo, {f"people/dana/skills/tidy/{k}": v for k, v in tests.items()})
    assert run(repo, "register", str(repo / "people/dana/skills/tidy"), "--bump", "patch")[0] == 0
    code, out = run(repo, "move", "tidy", "--to", "groups/acme", "--json")
    assert code == 0, out
    gate = json.loads(out)["authoring_review"]
    assert "proof found: tests/test_tidy.py (test)" in gate[0]
    assert gate[1].startswith("  not proof: latest.txt: the name is not a test")
    clean(repo)


def test_a_move_into_a_personal_scope_needs_no_proof_and_an_untracked_folder_moves_too(tmp_path):
    root = exobrain(
        tmp_path / "y",
        registries={"people/dana": [TIDY]},
        scopes=["people/dana", "people/dana/hosts/lap1"],
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )
    build_tree(root, {"people/dana/skills/tidy/SKILL.md": skill_md("tidy")})  # not committed
    code, out = run(root, "move", "tidy", "--to", "people/dana/hosts/lap1")
    assert code == 0, out
    assert (root / "people/dana/hosts/lap1/skills/tidy/SKILL.md").is_file()
    assert "people/dana/hosts/lap1 is a host scope: no proof is asked for there" in out
    clean(root)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--to", "groups/nope"], "not a scope (no groups/nope/AGENTS.md)"),
        (["--to", "people/dana"], "already lives in people/dana"),
        (["--to", "../etc"], "without '.' or '..'"),
    ],
)
def test_move_refusals_change_nothing(repo, args, message):
    before = git(repo, "status", "--porcelain")
    code, out = run(repo, "move", "tidy", *args)
    assert code == 2 and message in out, out
    assert git(repo, "status", "--porcelain") == before


def test_move_refuses_a_taken_target_and_dry_run_writes_nothing(repo):
    build_tree(repo, {"groups/acme/skills/tidy/SKILL.md": skill_md("tidy")})
    code, out = run(repo, "move", "tidy", "--to", "groups/acme")
    assert code == 2 and "groups/acme/skills/tidy already exists" in out
    (repo / "groups/acme/skills/tidy/SKILL.md").unlink()
    (repo / "groups/acme/skills/tidy").rmdir()
    code, out = run(repo, "move", "tidy", "--to", "groups/acme", "--dry-run")
    assert code == 0 and out.startswith("would move skill:tidy@people/dana")
    assert git(repo, "status", "--porcelain") == ""


def test_remove_refuses_dangling_overrides_unless_forced(repo):
    code, out = run(repo, "remove", "tidy")
    assert code == 2
    assert "would leave 2 override(s) pointing at nothing" in out
    assert "people/bob/skills.json #0 (tier always)" in out
    assert "people/carol/skills.json #0 (tier off)" in out
    assert git(repo, "status", "--porcelain") == ""
    code, out = run(repo, "remove", "tidy", "--force")
    assert code == 0, out
    assert not (repo / "people/dana/skills/tidy").exists()
    assert "D  people/dana/skills/tidy/SKILL.md" in git(repo, "status", "--porcelain")
    assert registry(repo, "people/dana") == []
    assert registry(repo, "people/bob") == []
    assert registry(repo, "people/carol") == [
        {"name": "tidy", "from": "groups/acme", "tier": "unlisted"}
    ]
    assert json.loads((repo / "people/dana/skills.lock.json").read_text())["skills"] == {}
    clean_after = CliRunner().invoke(validate, ["--repo", str(repo)])
    assert clean_after.exit_code == 1  # carol's override of groups/acme dangled before
    code, out = run(repo, "lock", "--check")
    assert code == 0, out


def test_remove_reports_links_that_still_name_the_skill(repo):
    build_tree(
        repo,
        {
            "people/dana/skills/neat/SKILL.md": skill_md(
                "neat", links="{supersedes: [skill:tidy@people/dana]}"
            ),
        },
    )
    with open(repo / "people/dana/skills.json", "w") as handle:
        json.dump({"skills": [TIDY, {"name": "neat", "owner": "dana", "tier": "optional"}]}, handle)
    code, out = run(repo, "remove", "tidy", "--force", "--dry-run")
    assert code == 0, out
    assert "note: skill:neat@people/dana (supersedes) still names skill:tidy@people/dana" in out
    assert (repo / "people/dana/skills/tidy").is_dir()  # a dry run


def test_remove_an_external_declaration(tmp_path):
    source = {"repo": "https://example.com/skills.git", "path": "skills/pdf", "ref": "main"}
    root = exobrain(
        tmp_path / "z",
        registries={
            "global": [{"name": "pdf", "owner": "anthropic", "tier": "optional", "source": source}]
        },
    )
    code, out = run(root, "remove", "skill:pdf@external/anthropic")
    assert code == 0, out
    assert json.loads((root / "skills.json").read_text())["skills"] == []
