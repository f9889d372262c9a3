"""connect-agent on broken input: clear messages, right exit codes, nothing half-done."""

import json
import os

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from tests.support.helpers import build_tree, exobrain


def sample(tmp_path):
    return exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "ok", "owner": "o", "tier": "always", "force": True},
                {"name": "ghost", "owner": "o", "tier": "always", "force": True},
            ]
        },
        scopes=["groups/g"],
        skills={"global/ok": None},
        connection={"connected_scopes": ["groups/g"]},
    )


def run(root, *args):
    result = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git/" not in str(p))


def test_broken_registry_still_links_the_rest(tmp_path):
    root = sample(tmp_path)
    (root / "groups/g/skills.json").write_text('{"skills": [\n  {"name": "x" "tier": 1}\n]}')
    result = run(root, "claude")
    assert result.exit_code == 2
    assert "groups/g/skills.json:2" in result.stderr and "invalid JSON" in result.stderr
    assert (root / ".claude/skills/ok").is_symlink()


def test_missing_skill_folder_is_reported_and_skipped(tmp_path):
    root = sample(tmp_path)
    result = run(root, "claude")
    assert result.exit_code == 1
    assert "! skipped       ghost: skill folder skills/ghost is missing" in result.output
    assert "problem: ghost: skill folder skills/ghost is missing" in result.stderr
    assert (root / ".claude/skills/ok").is_symlink()
    assert not (root / ".claude/skills/ghost").exists()


@pytest.mark.parametrize("kind", ["dangling", "file"])
def test_skills_folder_that_is_not_a_folder(tmp_path, kind):
    root = sample(tmp_path)
    (root / ".claude").mkdir()
    if kind == "dangling":
        os.symlink(tmp_path / "gone", root / ".claude/skills")
    else:
        (root / ".claude/skills").write_text("oops")
    before = listing(root)
    result = run(root, "claude")
    assert result.exit_code == 2
    expected = (
        f".claude/skills is a symbolic link to {tmp_path / 'gone'}, not a real folder; it must "
        f"be a real folder inside {root}"
        if kind == "dangling"
        else ".claude/skills: the skills folder is a file, not a folder"
    )
    assert expected in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert listing(root) == before and not (root / ".git/hooks/post-merge").exists()


def test_unwritable_target_changes_nothing(tmp_path, monkeypatch):
    root = sample(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(blocker / "claude"))
    before = listing(root)
    result = run(root, "claude", "--user")
    assert result.exit_code == 1
    assert "cannot write" in result.stderr and "is not a folder" in result.stderr
    assert "nothing was changed" in result.stderr
    assert listing(root) == before and not (root / ".git/hooks/post-merge").exists()


def test_broken_connection_file_is_bad_input(tmp_path):
    root = sample(tmp_path)
    (root / ".exobrain.json").write_text('{"connected_scopes": "groups/g"}')
    result = run(root, "claude")
    assert result.exit_code == 2 and "connected_scopes must be a list" in result.stderr
    (root / ".exobrain.json").write_text('{"connected_scopes": [], "user_agents": "claude"}')
    result = run(root, "claude", "--user", "--relink")
    assert result.exit_code == 2 and "user_agents must be a list" in result.stderr


def test_stale_connected_scope_is_reported(tmp_path):
    root = sample(tmp_path)
    (root / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["groups/gone"]}))
    result = run(root, "claude")
    assert "WARNING connection-scope: .exobrain.json: connected scope 'groups/gone'" in (
        result.stderr
    )
    assert result.exit_code == 1  # the sample's missing ghost folder, not the warning
    assert (root / ".claude/skills/ok").is_symlink()


def test_unreadable_scope_instructions_are_a_warning(tmp_path):
    root = sample(tmp_path)
    build_tree(root, {"groups/g/AGENTS.md": b"caf\xe9\n"})
    result = run(root, "codex")
    assert "groups/g/AGENTS.md:1: not UTF-8" in result.stderr
    assert result.exit_code == 1  # ghost is missing; the AGENTS.md problem alone is a warning
    assert (root / ".agents/skills/ok").is_symlink()
