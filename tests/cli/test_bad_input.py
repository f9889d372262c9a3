"""Every broken input exits 2 with a message naming the file, never a traceback."""

import json
import os

import pytest
from click.testing import CliRunner

from exobrain.cli.status import main as status
from exobrain.cli.validate import main as validate
from tests.support.helpers import build_tree, exobrain

COMMANDS = [status, validate]


def invoke(cmd, root, *args):
    result = CliRunner().invoke(cmd, ["--repo", str(root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def base(tmp_path):
    return exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "ok", "owner": "o", "tier": "always", "force": True}]},
        skills={"global/ok": None},
    )


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize(
    "content,needle",
    [
        (b'{"skills": [\n  {"name": "a", "owner": "o" "tier": "always"}\n]}', "skills.json:2:"),
        (
            b'{"skills": [{"name": "a", "from": "global", "tier": "always", "force": true}]}',
            "force",
        ),
        (b"", "empty file"),
        (b'{"skills": [{"name": "caf\xe9", "owner": "o", "tier": "always"}]}', "not UTF-8"),
    ],
)
def test_broken_group_registry(tmp_path, cmd, content, needle):
    root = base(tmp_path)
    build_tree(root, {"groups/g/AGENTS.md": "g", "groups/g/skills.json": content})
    (root / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["groups/g"]}))
    result = invoke(cmd, root)
    assert result.exit_code == 2
    output = result.stdout + result.stderr
    assert "groups/g/skills.json" in output and needle in output
    if cmd is status:
        assert "ok" in result.stdout  # the other registries still load


@pytest.mark.parametrize(
    "text,needle",
    [
        ("no frontmatter here\n", "no YAML frontmatter"),
        ("---\nname: ok\ndescription: a: b: c\n---\n", "invalid YAML"),
        ("---\nname: ok\n", "not closed"),
    ],
)
def test_broken_skill_md_in_validate(tmp_path, text, needle):
    root = base(tmp_path)
    (root / "skills/ok/SKILL.md").write_text(text)
    result = invoke(validate, root)
    assert (
        result.exit_code == 2 and "skills/ok/SKILL.md" in result.stdout and needle in result.stdout
    )
    assert invoke(status, root).exit_code == 0  # status still shows the row


def test_non_utf8_skill_md(tmp_path):
    root = base(tmp_path)
    (root / "skills/ok/SKILL.md").write_bytes(b"---\nname: ok\ndescription: caf\xe9\n---\n")
    result = invoke(validate, root)
    assert result.exit_code == 2 and "not UTF-8" in result.stdout


def test_missing_scopes_json_uses_defaults(tmp_path):
    root = base(tmp_path)
    build_tree(root, {"people/a/AGENTS.md": "a"})
    assert not (root / "scopes.json").exists()
    (root / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["people/a"]}))
    result = invoke(status, root, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["chain"] == ["global", "people/a"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_broken_connection_and_scopes_files(tmp_path, cmd):
    root = base(tmp_path)
    (root / "scopes.json").write_text("{ nope")
    result = invoke(cmd, root)
    assert result.exit_code == 2 and "scopes.json:1:3" in result.stderr
    (root / "scopes.json").unlink()
    (root / ".exobrain.json").write_text('["people/a"]')
    result = invoke(cmd, root)
    assert result.exit_code == 2 and ".exobrain.json" in result.stderr


@pytest.mark.parametrize("cmd", COMMANDS)
def test_unreadable_folder_is_reported(tmp_path, cmd, monkeypatch):
    root = base(tmp_path)
    build_tree(root, {"people/a/AGENTS.md": "a", "people/a/skills.json": {"skills": []}})
    real_scandir = os.scandir

    def guarded(path="."):
        if str(path).endswith("people"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", guarded)
    args = ["--all"] if cmd is status else []
    result = invoke(cmd, root, *args)
    assert result.exit_code == 2
    assert (
        "people" in result.stdout + result.stderr
        and "Permission denied" in result.stdout + result.stderr
    )


def test_not_a_git_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(status, [])
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr
