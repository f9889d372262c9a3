"""Composition end to end: ``exobrain compose`` writes, declares and locks a composed skill;
resolution brings a linked skill's dependencies at ``always`` (transitively, with the reason
in skills-status), connect-agent links them, and a circle is reported."""

import json
import os

import pytest
import skills_ref
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.umbrella import main as exobrain_main
from exobrain.cli.validate import main as validate
from exobrain.skillmd import read_skill
from tests.support.helpers import build_tree, exobrain, skill_md

FORCED = {"owner": "bob", "force": True}


def run(root, *args):
    result = CliRunner().invoke(exobrain_main, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def status(root):
    result = CliRunner().invoke(status_cmd, ["--json", "--repo", str(root)])
    return result, {row["name"]: row for row in json.loads(result.stdout)["skills"]}


@pytest.fixture
def root(tmp_path):
    """a and b forced optional; b needs c (bob's, not forced: off for al) and d (archived)."""
    needs = "dependencies:\n  skills: [skill:c, 'skill:d@global']"
    return exobrain(
        tmp_path / "x",
        scopes=["people/al"],
        registries={
            "global": [
                {"name": "a", "tier": "optional", **FORCED},
                {"name": "b", "tier": "optional", **FORCED},
                {"name": "c", "owner": "bob", "tier": "optional"},
                {"name": "d", "tier": "optional", "lifecycle": "archived", **FORCED},
            ]
        },
        skills={
            "global/a": skill_md("a", "Use a to plan the work first."),
            "global/b": skill_md("b", "Use b to carry the plan out.", **{"x": "1"}).replace(
                "x: 1", needs
            ),
            "global/c": None,
            "global/d": None,
        },
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )


def test_compose_writes_declares_and_locks_a_composed_skill(root):
    code, out = run(root, "compose", "pair", "--from", "a", "--from", "skill:b@global")
    assert code == 0, out
    assert "composed skill:pair@people/al 0.1.0 from a, skill:b@global" in out
    folder = root / "people/al/skills/pair"
    doc = read_skill(folder / "SKILL.md")
    assert (doc.meta["source"], doc.meta["schema_version"], doc.meta["version"]) == (
        "composed",
        1,
        "0.1.0",
    )
    assert doc.meta["dependencies"] == {"skills": ["skill:a@global", "skill:b@global"]}
    assert doc.meta["links"] == {"uses_skill": ["skill:a@global", "skill:b@global"]}
    assert skills_ref.validate(folder) == []  # the fields sit in metadata: a valid folder
    assert "1. [`skill:a@global`](../../../../skills/a/SKILL.md) — Use a to plan" in doc.body
    for link in ("../../../../skills/a/SKILL.md", "../../../../skills/b/SKILL.md"):
        assert (folder / link).is_file()
    registry = json.loads((root / "people/al/skills.json").read_text())["skills"]
    assert registry == [{"name": "pair", "owner": "al", "tier": "optional"}]
    lock = json.loads((root / "people/al/skills.lock.json").read_text())["skills"]["pair"]
    assert lock["version"] == "0.1.0" and set(lock["files"]) == {"SKILL.md"}
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    assert json.loads(result.stdout)["errors"] == 0
    assert run(root, "lock", "--check")[0] == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["pair", "--from", "a"], "at least two different parts"),
        (["pair", "--from", "a", "--from", "a"], "at least two different parts"),
        (["pair", "--from", "a", "--from", "skill:a@global", "--from", "b"], "named twice"),
        (["pair", "--from", "a", "--from", "nope"], "no skill named 'nope' is declared"),
        (["Pair", "--from", "a", "--from", "b"], "may hold only lowercase"),
        (["a", "--from", "a", "--from", "b", "--into", "global"], "skills/a already exists"),
    ],
)
def test_compose_refusals_write_nothing(root, args, message):
    code, out = run(root, "compose", *args)
    assert code == 2 and message in out, out
    assert not (root / "people/al/skills").exists()


def test_a_linked_skill_brings_its_dependencies_transitively(root):
    assert run(root, "compose", "pair", "--from", "a", "--from", "b", "--tier", "always")[0] == 0
    result, rows = status(root)
    assert result.exit_code == 0, result.output
    assert rows["pair"]["tier"] == "always" and rows["pair"]["note"] == ""
    assert (rows["a"]["tier"], rows["a"]["note"]) == ("always", "dependency of pair")
    assert (rows["b"]["tier"], rows["b"]["note"]) == ("always", "dependency of pair")
    assert (rows["c"]["tier"], rows["c"]["note"]) == ("always", "dependency of b")  # bob's
    assert rows["d"]["tier"] == "off"  # archived: unavailable, not brought in
    result = CliRunner().invoke(connect_cmd, ["claude", "--repo", str(root)])
    assert result.exit_code == 0, result.output
    linked = sorted(os.listdir(root / ".claude/skills"))
    assert linked == ["a", "b", "c", "pair"]
    text = CliRunner().invoke(status_cmd, ["--repo", str(root)]).stdout
    assert "dependency of b" in text

    # optional again: nothing needs them, so a and b are back in the index and c is off
    (root / "people/al/skills.json").write_text(
        json.dumps({"skills": [{"name": "pair", "owner": "al", "tier": "optional"}]})
    )
    _, rows = status(root)
    assert [rows[n]["tier"] for n in ("a", "b", "pair")] == ["optional"] * 3
    assert rows["c"]["tier"] == "off"


def test_a_circle_of_dependencies_is_linked_and_reported(root):
    assert run(root, "compose", "pair", "--from", "a", "--from", "b", "--tier", "always")[0] == 0
    build_tree(
        root,
        {
            "skills/c/SKILL.md": skill_md("c", **{"x": "1"}).replace(
                "x: 1", "dependencies:\n  skills: ['skill:b@global']"
            )
        },
    )
    result, rows = status(root)
    assert all(rows[n]["tier"] == "always" for n in ("a", "b", "c", "pair"))
    assert "dependency-cycle" in result.stderr and "b@global → c@global → b@global" in result.stderr
    assert "skills/b/SKILL.md" in result.stderr
