"""exobrain create-instance: what an instance gets, what it never gets, and what is refused."""

import json
import os
import stat

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.errors import OperationFailed, UsageError
from exobrain.instance.create import create_instance
from exobrain.instance.framework import (
    FRAMEWORK_FILES,
    FRAMEWORK_FOLDERS,
    blob_id,
    is_framework,
    read_framework,
)
from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git, skill_md

OURS = ("exobrain", "exobrain-tests", "skill-authoring")  # the global skills of issue 7


def global_declarations() -> list[dict]:
    """The seed's global declarations, in file order (other issues may add skills)."""
    return [e for e in json.loads((ROOT / "skills.json").read_text())["skills"] if "from" not in e]


def cli(*args, cwd=None):
    return CliRunner().invoke(exobrain_main, list(args), catch_exceptions=False)


def test_the_manifest_classifies_paths():
    shipped = ("exobrain",)
    assert is_framework("scripts/exobrain/scopes.py", shipped)
    assert is_framework("tests/cli/test_docs.py", shipped)
    assert is_framework("knowledge/exobrain/skills.md", shipped)
    assert is_framework(".github/workflows/skills-review.yml", shipped)
    assert is_framework("skills/exobrain/SKILL.md", shipped)
    for path in (
        "skills/other/SKILL.md",
        "skills.json",
        "skills.lock.json",
        "crons.json",
        "scopes.json",
        "seed/AGENTS.md",
        "people/ann/AGENTS.md",
        "knowledge/x.md",
        ".exobrain.json",
        "signals/ann/laptop.jsonl",
        ".github/workflows/deploy.yml",
    ):
        assert not is_framework(path, shipped), path


def test_the_seeds_framework_is_its_toolkit_docs_and_global_skills():
    framework = read_framework(ROOT)
    in_tree = sorted(e["name"] for e in global_declarations() if "source" not in e)
    assert list(framework.shipped) == in_tree and set(OURS) <= set(in_tree)
    files = set(framework.files)
    assert {
        "pyproject.toml",
        "scripts/exobrain/instance/framework.py",
        "tests/instance/test_instance.py",
        "knowledge/exobrain/propagation.md",
        "skills/exobrain/SKILL.md",
    } <= files
    assert not any(p.startswith(("seed/", "people/", "groups/")) for p in files)
    names = [d["name"] for d in framework.declarations]
    assert names == [e["name"] for e in global_declarations()]
    assert "skill-creator" in names


def test_an_instance_holds_the_framework_and_fresh_starters(tmp_path):
    created = create_instance(ROOT, tmp_path / "mine", person="ann", host="laptop")
    root = created.root
    framework = read_framework(ROOT)
    for path in framework.files:
        assert blob_id(root / path) == blob_id(ROOT / path), path
    tracked = set(git(root, "ls-files").split())
    assert tracked == set(framework.files) | {
        "skills.json",
        "skills.lock.json",
        "crons.json",
        "scopes.json",
        "signals/weights.json",
        "groups/.gitkeep",
        "people/.gitkeep",
        "people/ann/AGENTS.md",
        "people/ann/hosts/laptop/AGENTS.md",
    }
    assert not (root / "seed").exists() and not (root / ".exobrain.json").exists()
    registry = json.loads((root / "skills.json").read_text())
    assert registry["$schema"] == "skills.schema.json"
    assert registry["skills"] == global_declarations()
    assert [e["name"] for e in registry["skills"]] == created.declared
    assert all(
        e["force"] and e["tier"] == "optional" for e in registry["skills"] if e["name"] in OURS
    )
    seed_lock = json.loads((ROOT / "skills.lock.json").read_text())["skills"]
    lock = json.loads((root / "skills.lock.json").read_text())["skills"]
    assert lock == {n: seed_lock[n] for n in created.shipped}
    assert git(root, "log", "--format=%s").splitlines() == [
        git(root, "log", "-1", "--format=%s").strip()
    ]
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "branch", "--show-current").strip() == "main"
    assert os.access(root / ".ci" / "run", os.X_OK)


def test_crons_keeps_only_jobs_whose_skill_ships(tmp_path):
    seed = create_instance(ROOT, tmp_path / "seed").root
    build_tree(
        seed,
        {
            "seed/AGENTS.md": "# seed\n",
            "seed/skills/tour/SKILL.md": skill_md("tour"),
            "seed/skills.json": {"skills": [{"name": "tour", "owner": "seed", "tier": "optional"}]},
        },
    )
    jobs = [
        {"name": "plain", "schedule": "0 1 * * *", "command": "true"},
        {
            "name": "check",
            "schedule": "0 2 * * *",
            "command": "exobrain selftest",
            "skill": "skill:exobrain-tests@global",
        },
        {"name": "short", "schedule": "0 3 * * *", "command": "true", "skill": "exobrain"},
        {"name": "tour", "schedule": "0 4 * * *", "command": "true", "skill": "skill:tour@seed"},
        {
            "name": "other",
            "schedule": "0 5 * * *",
            "command": "true",
            "skill": "skill:exobrain@groups/x",
        },
    ]
    build_tree(
        seed,
        {"crons.json": {"$schema": "scripts/exobrain/schemas/crons.schema.json", "jobs": jobs}},
    )
    root = create_instance(seed, tmp_path / "mine").root
    data = json.loads((root / "crons.json").read_text())
    assert data["$schema"] == "scripts/exobrain/schemas/crons.schema.json"
    assert [j["name"] for j in data["jobs"]] == ["plain", "check", "short"]


def test_scope_stubs_and_no_scopes_without_person(tmp_path):
    root = create_instance(ROOT, tmp_path / "a", person="ann").root
    text = (root / "people" / "ann" / "AGENTS.md").read_text()
    assert text.startswith("# people/ann\n") and "person scope of ann" in text
    assert not (root / "people" / "ann" / "hosts").exists()
    bare = create_instance(ROOT, tmp_path / "b").root
    assert sorted(p.name for p in (bare / "people").iterdir()) == [".gitkeep"]


def test_an_existing_empty_folder_is_used_with_its_place(tmp_path):
    target = tmp_path / "empty"
    target.mkdir()
    created = create_instance(ROOT, target)
    assert created.root == target and (target / ".git").is_dir()
    assert stat.S_IMODE(target.stat().st_mode) & 0o755 == 0o755
    assert [p.name for p in tmp_path.iterdir()] == ["empty"]  # no temp folder left


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"host": "laptop"}, "--host needs --person"),
        ({"person": "Ann"}, "--person 'Ann'"),
        ({"person": "a/b"}, "--person 'a/b'"),
        ({"person": "ann", "host": "x__y"}, "--host 'x__y'"),
    ],
)
def test_bad_ids_are_refused_before_anything_is_written(tmp_path, kwargs, message):
    with pytest.raises(UsageError, match=message):
        create_instance(ROOT, tmp_path / "mine", **kwargs)
    assert not (tmp_path / "mine").exists()


def test_a_folder_that_holds_anything_is_refused_and_left_alone(tmp_path):
    target = build_tree(tmp_path / "busy", {".hidden": "mine\n"})
    result = cli("create-instance", str(target), "--repo", str(ROOT))
    assert result.exit_code == 2
    assert "is not empty" in result.output
    assert [p.name for p in target.iterdir()] == [".hidden"]
    (tmp_path / "file").write_text("x")
    assert cli("create-instance", str(tmp_path / "file"), "--repo", str(ROOT)).exit_code == 2


def test_a_target_inside_the_seed_is_refused(tmp_path):
    seed = create_instance(ROOT, tmp_path / "seed").root
    with pytest.raises(UsageError, match="inside the seed"):
        create_instance(seed, seed / "people" / "new")
    assert not (seed / "people" / "new").exists()


def test_a_folder_without_the_framework_is_no_seed(tmp_path):
    plain = exobrain(tmp_path / "plain", registries={"global": []})
    result = cli("create-instance", str(tmp_path / "out"), "--repo", str(plain))
    assert result.exit_code == 2
    assert "holds no exobrain framework (missing: " in result.output
    assert not (tmp_path / "out").exists()


def test_a_failure_midway_leaves_nothing_behind(tmp_path, monkeypatch):
    import exobrain.instance.create as instance

    def broken(*args, **kwargs):
        raise OperationFailed("git init failed: simulated")

    monkeypatch.setattr(instance, "initial_commit", broken)
    with pytest.raises(OperationFailed):
        create_instance(ROOT, tmp_path / "mine", person="ann")
    assert list(tmp_path.iterdir()) == []


def test_without_a_git_identity_the_commit_has_a_fallback_author(tmp_path, monkeypatch):
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tuseConfigOnly = true\n")  # git may not guess one either
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    for name in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ):
        monkeypatch.delenv(name, raising=False)
    created = create_instance(ROOT, tmp_path / "mine")
    assert any("no user.name/user.email" in note for note in created.notes)
    author = git(created.root, "log", "-1", "--format=%an <%ae>").strip()
    assert author == "exobrain create-instance <create-instance@exobrain.invalid>"


def test_cli_prints_what_it_made_and_the_next_step(tmp_path):
    result = cli(
        "create-instance",
        str(tmp_path / "mine"),
        "--person",
        "ann",
        "--host",
        "pc",
        "--repo",
        str(ROOT),
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"created {tmp_path / 'mine'}: ")
    names = ", ".join(e["name"] for e in global_declarations())
    assert f"skills.json declares: {names}" in result.output
    assert "scopes: people/ann, people/ann/hosts/pc" in result.output
    assert (
        lines[-1] == f"next: cd {tmp_path / 'mine'} && pip install -e '.[test]' && "
        "exobrain selftest"
    )


def test_cli_json_and_an_unknown_agent(tmp_path):
    result = cli("create-instance", str(tmp_path / "a"), "--json", "--repo", str(ROOT))
    data = json.loads(result.output)
    assert data["declared"][0] == "exobrain" and data["connect"] is None
    assert data["commit"] == git(tmp_path / "a", "rev-parse", "HEAD").strip()
    bad = cli("create-instance", str(tmp_path / "b"), "--agent", "nope", "--repo", str(ROOT))
    assert bad.exit_code == 2 and "unknown agent" in bad.output
    assert not (tmp_path / "b").exists()


def test_the_manifest_lists_what_the_seed_has():
    for path in FRAMEWORK_FILES:
        assert (ROOT / path).exists(), path
    for folder in FRAMEWORK_FOLDERS:
        assert (ROOT / folder).is_dir(), folder


def test_agent_connects_the_new_person_and_host(tmp_path):
    result = cli(
        "create-instance",
        str(tmp_path / "mine"),
        "--person",
        "ann",
        "--host",
        "pc",
        "--agent",
        "claude",
        "--json",
        "--repo",
        str(ROOT),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["connect"]["exit_code"] == 0 and data["connect"]["problems"] == []
    root = tmp_path / "mine"
    connection = json.loads((root / ".exobrain.json").read_text())
    assert connection["connected_scopes"] == ["people/ann/hosts/pc"]
    assert connection["agents"] == ["claude"] and connection["person"] == "ann"
    assert (
        "| exobrain | skills/exobrain/SKILL.md |"
        in (root / ".claude" / "optional-skills.md").read_text()
    )
    assert git(root, "status", "--porcelain") == ""  # what connect writes is ignored
    guest = cli("create-instance", str(tmp_path / "guest"), "--agent", "codex", "--repo", str(ROOT))
    assert guest.exit_code == 0, guest.output
    assert "connected codex: 0 skill(s) linked" in guest.output
    assert json.loads((tmp_path / "guest" / ".exobrain.json").read_text())["connected_scopes"] == []


def test_a_target_filled_meanwhile_is_left_as_it_is(tmp_path, monkeypatch):
    import exobrain.instance.create as instance

    target = tmp_path / "mine"
    real = instance.initial_commit

    def racing(root, message, notes):  # another process writes into the target meanwhile
        target.mkdir()
        (target / "theirs.txt").write_text("theirs\n")
        return real(root, message, notes)

    monkeypatch.setattr(instance, "initial_commit", racing)
    with pytest.raises(OperationFailed, match="cannot move the new instance into place"):
        create_instance(ROOT, target)
    assert [p.name for p in target.iterdir()] == ["theirs.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]
