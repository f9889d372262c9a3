"""Issue 17, item 3: locks never go stale by the toolkit's own hand. Every command that writes
runs in turn on one exobrain, and after each ``exobrain lock --check`` passes. Every command of
every console script must be listed here as a writer (run below) or as read-only, so a new
command cannot slip past this test."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cli
from exobrain.cli.fetch import main as fetch_cli
from exobrain.cli.promote import main as promote_cli
from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.instance.create import create_instance
from exobrain.interop.adopt_records import installed_hash
from tests.cli.test_grammar import LEAVES
from tests.support import ROOT
from tests.support.helpers import build_tree, git, skill_md

READ_ONLY = {
    "authoring-review",
    "skills-status",
    "skills-validate",
    "exobrain crons",
    "exobrain discover",
    "exobrain events",
    "exobrain get",
    "exobrain links",
    "exobrain list",
    "exobrain publish-catalog",  # writes a branch of its own, never a file of the work tree
    "exobrain mcp",  # its one writer, the signal tool, appends to a ledger like exobrain signal
    "exobrain quality",
    "exobrain scope list",
    "exobrain search",
    "exobrain selftest",
    "exobrain show",
    "exobrain site",  # writes only its -o folder, never a file of the exobrain
    "exobrain sparse",  # --apply changes git's sparse-checkout setting, never a tracked file
}


def lock_check(root: Path) -> None:
    result = CliRunner().invoke(exobrain_cli, ["lock", "--check", "--repo", str(root)])
    assert result.exit_code == 0, result.output


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)


@pytest.mark.slow
def test_every_writing_command_leaves_the_locks_fresh(tmp_path):
    root = create_instance(ROOT, tmp_path / "seed").root
    build_tree(root, {"seed/AGENTS.md": "# seed\n"})  # harvest --pick runs in a seed
    commit(root, "a seed")
    upstream = build_tree(
        tmp_path / "up" / "fmt",
        {"SKILL.md": skill_md("fmt", version="1.0.0"), "helper.py": "print(1)\n"},
    )
    instance = create_instance(root, tmp_path / "inst", person="ann").root
    build_tree(
        instance,
        {
            "people/ann/skills/lint/SKILL.md": skill_md("lint", version="1.0.0"),
            "people/ann/skills/lint/tests/test_lint.py": "def test_it():\n    assert 1\n",
            "people/ann/skills.json": {
                "skills": [{"name": "lint", "owner": "ann", "tier": "optional"}]
            },
        },
    )
    commit(instance, "lint")
    ran: set[str] = set()

    def step(path: str, *args: str, code: int = 0) -> str:
        script, *verbs = path.split()
        main = {
            "exobrain": exobrain_cli,
            "connect-agent": connect_cli,
            "skills-promote": promote_cli,
            "fetch-external-skills": fetch_cli,
        }[script]
        result = CliRunner().invoke(main, [*verbs, *args, "--repo", str(root)])
        assert result.exit_code == code, f"{path} {args}\n{result.output}"
        lock_check(root)
        ran.add(path)
        return result.output

    step("exobrain scope new", "people/dana")
    step("exobrain scope new", "groups/acme")
    step("connect-agent", "claude", "--person", "dana", "--group", "acme")
    build_tree(root, {"people/dana/skills/tidy/SKILL.md": skill_md("tidy", version="1.0.0")})
    step("exobrain register", str(root / "people/dana/skills/tidy"))
    step("skills-promote", "exobrain", "--from", "global", "--to", "always")
    step("skills-promote", "tidy", "--in", "people/dana", "--force")
    step("exobrain fork", "skill:tidy@people/dana", "--into", "groups/acme", "--name", "neat")
    out = step("exobrain supersede", "skill:neat@groups/acme", "skill:tidy@people/dana")
    assert "(version 0.1.0 → 0.1.1)" in out  # the edit is a new version, locked
    step("exobrain lifecycle", "skill:neat@groups/acme", "--to", "active")
    step("exobrain import", str(upstream))
    (upstream / "helper.py").write_text("print(2)\n")
    step("exobrain import", "--update", "fmt")
    (upstream / "helper.py").write_text("print(3)\n")
    out = step("exobrain import", "--update", "--all")
    assert "updated      skill:fmt@people/dana 1.0.1 → 1.0.2" in out
    step("exobrain move", "skill:fmt@people/dana", "--to", "groups/acme")
    installed = build_tree(root / ".claude/skills/memo", {"SKILL.md": skill_md("memo")})
    entry = {
        "source": str(installed),
        "sourceType": "local",
        "computedHash": installed_hash(installed),
    }
    build_tree(root, {"skills-lock.json": {"version": 1, "skills": {"memo": entry}}})
    step("exobrain adopt", "--agent", "claude", "--into", "people/dana", "--yes")
    step(
        "exobrain compose",
        "combo",
        "--from",
        "skill:neat@groups/acme",
        "--from",
        "skill:fmt@groups/acme",
        "--into",
        "groups/acme",
    )
    step("exobrain comment", "skill:neat@groups/acme", "Reads well; the second step is unclear.")
    for kind, *value in (
        ("vote", "up"),
        ("rank", "clarity", "0.8"),
        ("usage",),
        ("calibration", "completed"),
        ("fund", "10"),
    ):
        step(f"exobrain signal {kind}", "skill:neat@groups/acme", *value)
    step("exobrain signals", "--compact", "--older-than", "0")
    step("exobrain sweep", "--window", "1")
    step("exobrain remove", "skill:tidy@people/dana", "--force")
    step("exobrain lock")
    step(
        "exobrain export",
        "skill:neat@groups/acme",
        "--format",
        "agentskills-io",
        "-o",
        str(tmp_path / "out"),
    )
    step("exobrain harvest", "--pick", "lint", "--into", "groups/acme", "--instance", str(instance))
    step("fetch-external-skills", "--agent", "claude", code=1)  # GitHub is unreachable here
    step("exobrain index", "--lexical")  # writes the search cache only
    build_tree(root, {"groups/acme/scripts/connect-agent": "#!/bin/sh\n"})
    step("exobrain trust", str(root / "groups/acme/scripts/connect-agent"))  # the user's trust
    created = tmp_path / "new"
    step("exobrain create-instance", str(created), "--person", "eve")
    lock_check(created)
    assert json.loads((root / "groups/acme/skills.lock.json").read_text())["skills"].keys() == {
        "combo",
        "fmt",
        "lint",
        "neat",
    }
    # every command is accounted for: run above, or read-only
    everything = {path for path, _ in LEAVES}
    assert everything - READ_ONLY == ran, sorted(everything - READ_ONLY - ran)


def test_lock_drops_the_entries_of_skills_that_are_gone(tmp_path):
    root = create_instance(ROOT, tmp_path / "x", person="dana").root
    build_tree(
        root,
        {
            "people/dana/skills/a/SKILL.md": skill_md("a", version="1.0.0"),
            "people/dana/skills/b/SKILL.md": skill_md("b", version="1.0.0"),
            "people/dana/skills.json": {
                "skills": [
                    {"name": "a", "owner": "dana", "tier": "optional"},
                    {"name": "b", "owner": "dana", "tier": "optional"},
                ]
            },
        },
    )

    def lock(*args):
        return CliRunner().invoke(exobrain_cli, ["lock", *args, "--repo", str(root)])

    assert lock().exit_code == 0
    (root / "people/dana/skills/b/SKILL.md").unlink()  # b's folder is gone by hand
    (root / "people/dana/skills.json").write_text(
        json.dumps({"skills": [{"name": "b", "owner": "dana", "tier": "optional"}]})
    )  # and a is no longer declared
    check = lock("--check")
    assert check.exit_code == 1
    assert "stale  skill:a@people/dana: locked, but no longer declared here" in check.output
    assert "stale  skill:b@people/dana: locked, but no longer declared here" in check.output
    done = lock()
    assert done.exit_code == 0 and "dropped skill:a@people/dana" in done.output
    assert json.loads((root / "people/dana/skills.lock.json").read_text())["skills"] == {}
    assert lock("--check").exit_code == 0
