"""fetch-external-skills from the command line: lines, --json, --check, exit codes, usage."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.fetch import main as fetch
from tests.support.helpers import build_tree, exobrain, skill_md
from tests.support.upstream import Upstream, external, two_skills


@pytest.fixture
def up(tmp_path):
    return Upstream(tmp_path, two_skills())


def brain(tmp_path, entries, connection=None):
    root = tmp_path / "brain"
    if root.exists():
        build_tree(root, {"skills.json": {"skills": entries}})
        return root
    return exobrain(
        root,
        {"global": entries},
        connection={"agents": ["claude"]} if connection is None else connection,
    )


def run(root, *args):
    result = CliRunner().invoke(fetch, ["--repo", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def test_one_line_per_skill_for_each_outcome(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url), external("doc", up.url, tier="optional")])
    code, out, _ = run(root, "--allow-local")
    first = up.head()
    assert code == 0
    assert f"claude  pdf  ↓ fetched {first[:7]} into .claude/skills" in out
    assert f"claude  doc  ↓ fetched {first[:7]} into .claude/skills-optional" in out
    assert out.splitlines()[-1] == "claude: 2 fetched"
    code, out, _ = run(root, "--allow-local")
    assert f"claude  pdf  = already at {first[:7]}" in out and code == 0
    second = up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    brain(tmp_path, [external("pdf", up.url)])
    code, out, _ = run(root, "--allow-local")
    assert f"claude  pdf  ↑ updated {first[:7]}→{second[:7]}" in out
    assert "claude  doc  - removed from .claude/skills-optional" in out
    up.bare.rename(tmp_path / "moved.git")
    code, out, _ = run(root, "--allow-local")
    assert code == 1
    assert "claude  pdf  ✗ failed: cannot reach" in out
    assert f"kept the installed copy at {second[:7]}" in out


def test_json_carries_the_same_facts(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    code, out, _ = run(root, "--allow-local", "--json")
    data = json.loads(out)
    assert code == 0 and data["exit_code"] == 0 and data["check"] is False
    [report] = data["reports"]
    [event] = report["events"]
    assert (report["agent"], event["link_name"], event["action"]) == (
        "claude",
        "pdf",
        "fetched",
    )
    assert event["to_commit"] == up.head() and event["repo"] == up.url
    code, out, _ = run(root, "--allow-local", "--json")
    data = json.loads(out)
    assert data["reports"][0]["events"][0]["action"] == "unchanged"
    assert data["reports"][0]["network_calls"] == 1  # one ls-remote for the branch


def test_check_exit_codes(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    code, out, _ = run(root, "--allow-local", "--check")
    assert code == 1 and "↓ would fetch" in out and not (root / ".claude").exists()
    run(root, "--allow-local")
    assert run(root, "--allow-local", "--check")[0] == 0
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    code, out, _ = run(root, "--allow-local", "--check")
    assert code == 1 and "↑ would update" in out


def test_agents_default_to_the_connection_and_none_is_a_usage_error(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)], connection={"agents": ["claude", "codex"]})
    code, _out, _ = run(root, "--allow-local")
    assert code == 0
    assert (root / ".claude/skills/pdf").is_dir()
    assert (root / ".agents/skills/pdf").is_dir()
    bare = exobrain(tmp_path / "bare", {"global": [external("pdf", up.url)]})
    code, _, err = run(bare, "--allow-local")
    assert code == 2 and "no agent to fetch for" in err and "--agent" in err
    code, _, err = run(bare, "--allow-local", "--agent", "vim")
    assert code == 2 and "unknown agent 'vim'" in err
    code, _, err = run(bare, "--check", "--force", "--agent", "claude")
    assert code == 2 and "drop --force" in err


def test_user_flag_installs_into_the_agents_home(tmp_path, up, isolated_home):
    root = brain(tmp_path, [external("pdf", up.url)])
    code, _, _ = run(root, "--allow-local", "--user", "--agent", "claude")
    assert code == 0 and (isolated_home / ".claude/skills/pdf/SKILL.md").is_file()
    assert not (root / ".claude").exists()


def test_local_sources_need_allow_local_or_the_repo_setting(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    code, out, _ = run(root)
    assert code == 1 and "local sources are off by default" in out and "--allow-local" in out
    build_tree(
        root, {".exobrain.json": {"agents": ["claude"], "external_skills": {"allow_local": True}}}
    )
    assert run(root)[0] == 0


def test_bad_setting_is_a_clear_input_error(tmp_path, up):
    root = brain(
        tmp_path, [], connection={"agents": ["claude"], "external_skills": {"max_bytes": "lots"}}
    )
    code, _, err = run(root)
    assert code == 2 and "external_skills.max_bytes must be a positive number" in err


@pytest.mark.parametrize(
    "source, message",
    [
        ({"repo": "-uhttps://evil"}, "source repo and ref must not start with '-'"),
        ({"ref": "--upload-pack=touch"}, "source repo and ref must not start with '-'"),
        (
            {"path": "../../etc"},
            "source path must be relative, on one line, and must not contain '..'",
        ),
    ],
)
def test_option_like_and_traversing_sources_are_refused_and_nothing_is_pruned(
    tmp_path, up, source, message
):
    root = brain(tmp_path, [external("pdf", up.url)])
    run(root, "--allow-local")
    entry = external("pdf", up.url)
    entry["source"].update(source)
    brain(tmp_path, [entry])
    code, _, err = run(root, "--allow-local")
    assert code == 2 and message in err and "skills.json" in err
    assert "not removed until they are fixed" in err
    assert (root / ".claude/skills/pdf/SKILL.md").is_file()


def test_cache_dir_option_and_environment_variable(tmp_path, up, monkeypatch):
    root = brain(tmp_path, [external("pdf", up.url)])
    run(root, "--allow-local", "--cache-dir", str(tmp_path / "c1"))
    assert len(list((tmp_path / "c1/git").glob("*.git"))) == 1
    monkeypatch.setenv("EXOBRAIN_CACHE_DIR", str(tmp_path / "c2"))
    run(root, "--allow-local", "--force")
    assert len(list((tmp_path / "c2/git").glob("*.git"))) == 1


def test_console_script_runs(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    script = Path(sys.executable).parent / "fetch-external-skills"
    done = subprocess.run(
        [str(script), "--allow-local"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "↓ fetched" in done.stdout and done.stderr == ""
