"""Issue 17, item 1: scopes as commands — exobrain scope new / list."""

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, git


def run(root, *args):
    result = CliRunner().invoke(main, ["scope", *args, "--repo", str(root)])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "path, kind, schema",
    [
        ("groups/acme", "group", "../../skills.schema.json"),
        ("teams/infra", "team", "../../skills.schema.json"),
        ("people/dana", "person", "../../skills.schema.json"),
    ],
)
def test_the_collection_decides_the_type(tmp_path, path, kind, schema):
    root = exobrain(tmp_path / "x")
    code, out = run(root, "new", path)
    assert code == 0, out
    assert f"made the {kind} scope {path}" in out
    assert json.loads((root / path / "skills.json").read_text()) == {
        "$schema": schema,
        "skills": [],
    }
    flag = (root / path / "AGENTS.md").read_text()
    assert flag.startswith(f"# {path.rsplit('/', 1)[1]}\n") and f"The {kind} scope `{path}`" in flag
    scopes = {s.path: s.type for s in open_workspace(root).scan().scopes}
    assert scopes[path] == kind


def test_a_host_needs_its_person_first_and_gets_the_deeper_schema_path(tmp_path):
    root = exobrain(tmp_path / "x")
    code, out = run(root, "new", "people/dana/hosts/lap1")
    assert code == 2 and "its parent people/dana is not a scope yet" in out
    assert "exobrain scope new people/dana first" in out
    assert not (root / "people").exists()
    assert run(root, "new", "people/dana")[0] == 0
    code, out = run(root, "new", "people/dana/hosts/lap1", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["type"] == "host" and data["files"] == [
        "people/dana/hosts/lap1/skills.json",
        "people/dana/hosts/lap1/AGENTS.md",
    ]
    registry = json.loads((root / "people/dana/hosts/lap1/skills.json").read_text())
    assert registry["$schema"] == "../../../../skills.schema.json"


@pytest.mark.parametrize(
    "path, message",
    [
        ("acme", "a scope path is COLLECTION/NAME"),
        ("things/acme", "'things' is not a collection of this exobrain"),
        ("groups/Acme", "'Acme' must be lowercase"),
        ("groups/../etc", "without '.' or '..'"),
        ("global", "is not made with scope new"),
        ("groups/acme", "groups/acme is already a scope"),
    ],
)
def test_what_cannot_be_a_scope_is_refused_and_nothing_written(tmp_path, path, message):
    root = exobrain(tmp_path / "x", scopes=["groups/acme"])
    before = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    code, out = run(root, "new", path)
    assert code == 2 and message in out, out
    after = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    assert after == before


def test_an_existing_registry_is_kept_and_dry_run_writes_nothing(tmp_path):
    root = exobrain(tmp_path / "x")
    mine = {"skills": [{"name": "tidy", "owner": "acme", "tier": "optional"}]}
    build_tree(root, {"groups/acme/skills.json": mine})
    code, out = run(root, "new", "groups/acme", "--dry-run")
    assert code == 0
    assert out.startswith(
        "would make the group scope groups/acme: .gitignore, groups/acme/AGENTS.md"
    )
    assert not (root / "groups/acme/AGENTS.md").exists()
    assert not (root / ".gitignore").exists()
    assert run(root, "new", "groups/acme")[0] == 0
    assert json.loads((root / "groups/acme/skills.json").read_text()) == mine


def test_scope_list_shows_types_declarations_and_the_chain(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "groups/acme": [{"name": "tidy", "owner": "acme", "tier": "optional"}],
            "people/dana": [{"name": "tidy", "from": "groups/acme", "tier": "always"}],
        },
        scopes=["groups/acme", "people/dana", "people/bob"],
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )
    code, out = run(root, "list")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].split() == ["SCOPE", "TYPE", "DECLARED", "IN-CHAIN"]
    assert lines[1].split() == ["global", "global", "0", "yes"]
    assert lines[2].split() == ["groups/acme", "group", "1"]
    assert lines[3].split() == ["people/bob", "person", "-"]
    assert lines[4].split() == ["people/dana", "person", "0", "yes"]
    data = json.loads(run(root, "list", "--json")[1])
    assert data["chain"] == ["global", "people/dana"]
    assert [s["scope"] for s in data["scopes"] if s["connected"]] == ["global", "people/dana"]


def test_the_first_scope_makes_git_ignore_local_keeping_the_gitignore(tmp_path):
    """local/ is this machine's own scope (scopes.md): from the first scope on, git add -A
    never commits it; the user's .gitignore keeps every byte, and a second scope adds nothing."""
    root = exobrain(tmp_path / "x")
    mine = "# mine\n*.log\n!keep.log"  # no newline at the end
    (root / ".gitignore").write_text(mine)
    code, out = run(root, "new", "groups/acme")
    assert code == 0, out
    assert "made the group scope groups/acme: .gitignore, groups/acme/skills.json" in out
    assert "next: git add groups/acme .gitignore && git commit" in out
    text = (root / ".gitignore").read_text()
    assert text.startswith(mine + "\n") and text.endswith("\n/local/\n")
    build_tree(root, {"local/AGENTS.md": "# mine\n", "local/skills/secret/SKILL.md": "x\n"})
    git(root, "add", "-A")
    assert "local/" not in git(root, "status", "--porcelain")
    code, out = run(root, "new", "people/dana")
    assert code == 0 and ".gitignore" not in out
    assert (root / ".gitignore").read_text() == text


def test_a_gitignore_that_already_ignores_local_is_left_alone(tmp_path):
    root = exobrain(tmp_path / "x")
    (root / ".gitignore").write_text("local\n")
    assert run(root, "new", "groups/acme")[0] == 0
    assert (root / ".gitignore").read_text() == "local\n"
