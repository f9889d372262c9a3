"""The SPEC-013 artifact fields: ``schema_version`` and ``source`` written by register and
fork, required instructions, the description's minimum length and ``files`` checked against
the folder."""

import hashlib
import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.skillmd import read_skill
from tests.support.helpers import build_tree, exobrain, skill_md

HELPER = "print('hi')\n"
HELPER_SHA = hashlib.sha256(HELPER.encode()).hexdigest()


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def findings(root, code):
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    return result.exit_code, [
        (f["level"], f["message"])
        for f in json.loads(result.stdout)["findings"]
        if f["code"] == code
    ]


def repo(tmp_path, text=None):
    root = exobrain(
        tmp_path / "x",
        scopes=["people/al"],
        registries={"global": [{"name": "tool", "owner": "al", "tier": "optional"}]},
        skills={"global/tool": text or skill_md("tool", "Use tool when the user needs tooling.")},
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )
    build_tree(root, {"skills/tool/helper.py": HELPER})
    return root


def test_register_writes_schema_version_and_source_native_once(tmp_path):
    root = repo(tmp_path)
    code, out = run(root, "register", str(root / "skills/tool"))
    assert code == 0 and "set schema_version: 1" in out and "set source: native" in out
    meta = read_skill(root / "skills/tool/SKILL.md").meta
    assert (meta["schema_version"], meta["source"], meta["version"]) == (1, "native", "0.1.0")
    before = (root / "skills/tool/SKILL.md").read_bytes()
    assert run(root, "register", str(root / "skills/tool"))[0] == 0
    assert (root / "skills/tool/SKILL.md").read_bytes() == before
    assert run(root, "lock", "--check")[0] == 0


def test_register_keeps_another_source_and_stamps_a_locked_skill_only_with_a_bump(tmp_path):
    root = repo(
        tmp_path, skill_md("tool", "Use tool when the user needs tooling.", source="imported")
    )
    build_tree(root, {"skills.lock.json": {"lock_version": 1, "skills": {}}})
    assert run(root, "register", str(root / "skills/tool"))[0] == 0
    assert read_skill(root / "skills/tool/SKILL.md").meta["source"] == "imported"

    old = repo(tmp_path / "old")
    (old / "skills/tool/SKILL.md").write_text(
        skill_md("tool", "Use tool when the user needs tooling.", version="1.0.0")
    )
    assert run(old, "lock")[0] == 0  # locked before the fields existed
    code, out = run(old, "register", str(old / "skills/tool"))
    assert code == 0 and "written with the next --bump" in out
    assert "schema_version" not in read_skill(old / "skills/tool/SKILL.md").meta
    code, out = run(old, "register", str(old / "skills/tool"), "--bump", "patch")
    meta = read_skill(old / "skills/tool/SKILL.md").meta
    assert code == 0 and (meta["version"], meta["schema_version"]) == ("1.0.1", 1)
    assert run(old, "lock", "--check")[0] == 0


def test_register_refuses_an_unknown_schema_version(tmp_path):
    root = repo(
        tmp_path, skill_md("tool", "Use tool when the user needs tooling.", schema_version="2")
    )
    code, out = run(root, "register", str(root / "skills/tool"))
    assert code == 2 and "schema_version" in out


def test_fork_writes_schema_version_and_source_native(tmp_path):
    root = repo(
        tmp_path, skill_md("tool", "Use tool when the user needs tooling.", source="imported")
    )
    assert run(root, "fork", "tool", "--into", "people/al", "--name", "mine")[0] == 0
    meta = read_skill(root / "people/al/skills/mine/SKILL.md").meta
    assert (meta["schema_version"], meta["source"]) == (1, "native")


def test_empty_instructions_are_an_info_and_a_short_description_a_warning(tmp_path):
    """The seed's SKILL.md is "frontmatter — name, description — plus an optional body": an
    empty body is worth a word, not a failure (export to agentskills-io refuses it there)."""
    root = repo(tmp_path, "---\nname: tool\ndescription: Tooling.\n---\n  \n")
    code, found = findings(root, "skill-instructions")
    assert code == 0 and found == [
        (
            "info",
            "the body is empty: the description is all an agent gets; write what it "
            "should do, step by step (export --format agentskills-io needs a body)",
        )
    ]
    assert findings(root, "skill-description")[1] == [
        (
            "warning",
            "description is 8 characters (at least 20): say what the skill does and when "
            "it should be used",
        )
    ]
    (root / "skills/tool/SKILL.md").write_text(skill_md("tool", "Use tool when tooling is due."))
    assert findings(root, "skill-instructions") == (0, [])
    assert findings(root, "skill-description")[1] == []


def files_skill(entries):
    listed = "".join(
        f"  - path: {path}\n" + (f"    sha256: '{digest}'\n" if digest else "")
        for path, digest in entries
    )
    return (
        "---\nname: tool\ndescription: Use tool when the user needs tooling.\nfiles:\n"
        f"{listed}---\nRun helper.py.\n"
    )


@pytest.mark.parametrize(
    "entries, expected",
    [
        ([("helper.py", HELPER_SHA), ("SKILL.md", None)], []),
        ([("helper.py", None)], []),
        (
            [("helper.py", "0" * 64)],
            [("error", f"files[0]: helper.py has sha256 {HELPER_SHA}, not the listed {'0' * 64}")],
        ),
        (
            [("helper.py", HELPER_SHA), ("gone.py", None)],
            [("error", "files[1]: gone.py is not in the skill folder")],
        ),
        ([("helper.py", "abc")], [("error", "files[0]: sha256 of helper.py must be 64 hex")]),
        ([("SKILL.md", None)], [("warning", "files lists the folder's files but not helper.py")]),
    ],
)
def test_files_in_the_frontmatter_are_checked_against_the_folder(tmp_path, entries, expected):
    root = repo(tmp_path, files_skill(entries))
    code, found = findings(root, "skill-files")
    assert len(found) == len(expected)
    assert [
        (level, message[: len(want)])
        for (level, message), (_, want) in zip(found, expected, strict=True)
    ] == expected
    assert code == (1 if any(level == "error" for level, _ in expected) else 0)
