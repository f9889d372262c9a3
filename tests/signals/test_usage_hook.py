"""The Claude Code usage hook (fed a recorded PostToolUse payload) and its installer."""

import json
import shlex
import subprocess
import sys

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as umbrella
from exobrain.errors import InputFileError
from exobrain.signals.usage_hook import (
    HOOK_MODULE,
    install_usage_hook,
    invoked_skill,
    log_path,
    record_usage,
    skill_names,
    usage_hook_command,
)
from exobrain.workspace import open_workspace
from tests.support import DATA
from tests.support.signal_helpers import repo

PAYLOAD = json.loads((DATA / "claude-posttooluse-skill.json").read_text())


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "lap")
    root = repo(tmp_path)
    # lint is declared in groups/acme by bo: make it reach al as "always"
    (root / "people/al/skills.json").write_text(
        json.dumps({"skills": [{"name": "lint", "from": "groups/acme", "tier": "always"}]})
    )
    return root


def payload_for(root, skill):
    return {
        **PAYLOAD,
        "cwd": str(root),
        "tool_input": {**PAYLOAD["tool_input"], "skill": skill},
        "tool_response": {**PAYLOAD["tool_response"], "commandName": skill},
    }


def hook(root, stdin: bytes, *extra):
    return subprocess.run(
        [sys.executable, "-m", HOOK_MODULE, *extra],
        input=stdin,
        capture_output=True,
        cwd=root,
        timeout=30,
    )


def ledger_lines(root):
    path = root / "signals/al/lap.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_recorded_payload_appends_exactly_one_usage_line(root):
    payload = payload_for(root, "lint")  # the link name the agent sees
    done = hook(root, json.dumps(payload).encode(), "--repo", str(root))
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    lines = ledger_lines(root)
    assert len(lines) == 1
    line = lines[0]
    assert {k: line[k] for k in ("skill", "kind", "value", "auto", "agent", "by", "host")} == {
        "skill": "skill:lint@groups/acme",
        "kind": "usage",
        "value": 1,
        "auto": True,
        "agent": "claude",
        "by": "al",
        "host": "lap",
    }


def test_plain_names_and_the_payload_cwd_work_too(root):
    done = hook(root / "groups", json.dumps(payload_for(root, "tidy")).encode())
    assert done.returncode == 0
    assert [line["skill"] for line in ledger_lines(root)] == ["skill:tidy@global"]


@pytest.mark.parametrize(
    "stdin",
    [
        b"{broken json",
        json.dumps({**PAYLOAD, "tool_name": "Bash"}).encode(),
        b"",
    ],
)
def test_bad_or_foreign_payloads_write_nothing_and_exit_0(root, stdin):
    done = hook(root, stdin, "--repo", str(root))
    assert done.returncode == 0 and done.stderr == b"" and ledger_lines(root) == []


def test_errors_are_logged_never_raised(root):
    done = hook(root, b"{broken json", "--repo", str(root))
    assert done.returncode == 0
    assert "error: JSONDecodeError" in log_path().read_text()
    unknown = hook(
        root, json.dumps(payload_for(root, "plugin:other")).encode(), "--repo", str(root)
    )
    assert unknown.returncode == 0 and ledger_lines(root) == []
    assert "skipped 'plugin:other'" in log_path().read_text()
    # a repository that is not an exobrain: logged, exit 0
    elsewhere = hook(root, json.dumps(payload_for(root, "tidy")).encode(), "--repo", "/nonexistent")
    assert elsewhere.returncode == 0 and "error:" in log_path().read_text().splitlines()[-1]


def test_off_and_unresolved_skills_are_not_counted(root):
    # "old" is declared by al (optional) so it resolves; an unknown name does not
    assert record_usage(payload_for(root, "old"), root) is not None
    assert record_usage(payload_for(root, "ghost"), root) is None
    # each is reachable by its link name, which is the plain name when no other skill has it
    assert skill_names(open_workspace(root), "claude") == {
        "tidy": "skill:tidy@global",
        "old": "skill:old@global",
        "lint": "skill:lint@groups/acme",
    }
    assert invoked_skill({"tool_name": "Skill", "tool_input": {}}) is None
    assert invoked_skill({"tool_name": "Skill", "tool_response": {"commandName": "/x"}}) == "x"


CACHED_RUN = """
import io, sys
from exobrain.signals import usage_hook
sys.stdin = io.StringIO(sys.argv[1])
usage_hook.main(["--repo", sys.argv[2]])
print("exobrain.workspace" in sys.modules, "dataclasses" in sys.modules)
"""


def test_resolution_is_cached_and_refreshed_when_a_registry_changes(root):
    def call(skill):
        done = subprocess.run(
            [sys.executable, "-c", CACHED_RUN, json.dumps(payload_for(root, skill)), str(root)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert call("tidy") == ["True", "True"]  # first call resolves …
    assert call("tidy") == ["False", "False"]  # … later calls read the cache
    assert call("fresh") == ["False", "False"]  # unknown: skipped without resolving
    registry = json.loads((root / "skills.json").read_text())
    registry["skills"].append({"name": "fresh", "owner": "al", "tier": "optional"})
    (root / "skills.json").write_text(json.dumps(registry))
    assert call("fresh") == ["True", "True"]  # a registry changed: resolved again
    assert [line["skill"] for line in ledger_lines(root)] == [
        "skill:tidy@global",
        "skill:tidy@global",
        "skill:fresh@global",
    ]


def test_installer_merges_keeps_other_settings_and_is_idempotent(tmp_path):
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(ls:*)"]},
                "model": "opus",
                "x-unknown": [1, 2],
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "Write",
                            "hooks": [{"type": "command", "command": "prettier --write"}],
                        }
                    ],
                    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
                },
            },
            indent=4,
        )
    )
    command = usage_hook_command(tmp_path)
    assert install_usage_hook(settings, command, root=tmp_path) is True
    data = json.loads(settings.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls:*)"]} and data["x-unknown"] == [1, 2]
    assert list(data) == ["permissions", "model", "x-unknown", "hooks"]
    assert data["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "notify"}]}]
    post = data["hooks"]["PostToolUse"]
    assert post[0]["matcher"] == "Write"
    assert post[1] == {
        "matcher": "Skill",
        "hooks": [{"type": "command", "command": shlex.join(command), "timeout": 10}],
    }
    text = settings.read_text()
    assert (
        install_usage_hook(settings, command, root=tmp_path) is False
        and settings.read_text() == text
    )
    # a moved repository or another Python: the hook is updated in place, not duplicated
    moved = [sys.executable, "-m", HOOK_MODULE, "--repo", "/new/place"]
    assert install_usage_hook(settings, moved, root=tmp_path) is True
    post = json.loads(settings.read_text())["hooks"]["PostToolUse"]
    assert len(post) == 2 and post[1]["hooks"][0]["command"] == shlex.join(moved)


def test_installer_creates_the_file_and_refuses_broken_ones(tmp_path):
    settings = tmp_path / "new" / "settings.local.json"
    assert install_usage_hook(settings, ["python3", "-m", HOOK_MODULE], root=tmp_path) is True
    assert json.loads(settings.read_text())["hooks"]["PostToolUse"][0]["matcher"] == "Skill"
    broken = tmp_path / "broken.json"
    broken.write_text('{"hooks": ')
    with pytest.raises(InputFileError, match="invalid JSON"):
        install_usage_hook(broken, ["x", HOOK_MODULE], root=tmp_path)
    assert broken.read_text() == '{"hooks": '
    odd = tmp_path / "odd.json"
    odd.write_text('{"hooks": {"PostToolUse": {}}}')
    with pytest.raises(InputFileError, match="must be a list"):
        install_usage_hook(odd, ["x", HOOK_MODULE], root=tmp_path)
    assert odd.read_text() == '{"hooks": {"PostToolUse": {}}}'


def test_installed_command_runs_the_hook(root):
    settings = root / ".claude" / "settings.local.json"
    install_usage_hook(settings, usage_hook_command(root), root=root)
    command = json.loads(settings.read_text())["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    done = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload_for(root, "tidy")).encode(),
        capture_output=True,
        cwd="/",
    )
    assert done.returncode == 0 and len(ledger_lines(root)) == 1


def test_connect_agent_track_usage_installs_the_hook_once(tmp_path):
    import json as _json

    from click.testing import CliRunner

    from exobrain.cli.connect import main as connect
    from tests.support.helpers import exobrain as make_exobrain

    root = make_exobrain(tmp_path / "repo", scopes=["people/al"])
    settings = root / ".claude/settings.local.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"permissions": {"allow": ["Bash(ls)"]}}\n')
    runner = CliRunner()
    first = runner.invoke(
        connect, ["claude", "--person", "al", "--track-usage", "--repo", str(root)]
    )
    assert first.exit_code == 0 and "+ usage hook  .claude/settings.local.json" in first.stdout
    data = _json.loads(settings.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    [entry] = data["hooks"]["PostToolUse"]
    assert (
        entry["matcher"] == "Skill"
        and "exobrain.signals.usage_hook" in entry["hooks"][0]["command"]
    )
    again = runner.invoke(connect, ["claude", "--relink", "--track-usage", "--repo", str(root)])
    assert again.exit_code == 0 and "✓ usage hook" in again.stdout
    assert _json.loads(settings.read_text()) == data
    wrong = runner.invoke(connect, ["codex", "--track-usage", "--repo", str(root)])
    assert wrong.exit_code == 2 and "--track-usage is for claude" in wrong.stderr


def test_gemini_activate_skill_is_recorded_and_answers_json(root):
    payload = {
        "hook_event_name": "AfterTool",
        "tool_name": "activate_skill",
        "tool_input": {"name": "lint"},
        "cwd": str(root),
    }
    done = hook(root, json.dumps(payload).encode(), "--repo", str(root), "--agent", "gemini")
    assert done.returncode == 0 and json.loads(done.stdout) == {}
    [line] = ledger_lines(root)
    assert (line["skill"], line["agent"]) == ("skill:lint@groups/acme", "gemini")
    # Claude's payload is another tool to Gemini's hook, and the reverse
    assert invoked_skill(payload, "claude") is None
    assert invoked_skill(payload_for(root, "tidy"), "gemini") is None


def test_a_superseded_skills_old_name_counts_for_its_successor(root):
    (root / "skills/tidy/SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use tidy when the user asks for tidy.\n"
        "links:\n  supersedes: ['skill:old@global']\n---\nInstructions.\n"
    )
    done = hook(root, json.dumps(payload_for(root, "old")).encode(), "--repo", str(root))
    assert done.returncode == 0
    [line] = ledger_lines(root)
    assert (line["skill"], line["via"]) == ("skill:tidy@global", "skill:old@global")


def test_installer_writes_geminis_after_tool_hook(tmp_path):
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark"}\n')
    command = usage_hook_command(tmp_path, "gemini")
    assert install_usage_hook(settings, command, root=tmp_path, agent="gemini")
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark"
    [group] = data["hooks"]["AfterTool"]
    assert group["matcher"] == "activate_skill"
    assert group["hooks"] == [{"type": "command", "command": shlex.join(command), "timeout": 10000}]
    assert command[-2:] == ["--agent", "gemini"]
    assert not install_usage_hook(settings, command, root=tmp_path, agent="gemini")


def test_a_new_supersedes_link_refreshes_the_cached_resolution(root):
    hook(root, json.dumps(payload_for(root, "old")).encode(), "--repo", str(root))
    CliRunner().invoke(umbrella, ["supersede", "skill:tidy", "skill:old", "--repo", str(root)])
    hook(root, json.dumps(payload_for(root, "old")).encode(), "--repo", str(root))
    first, second = ledger_lines(root)
    assert first["skill"] == "skill:old@global" and "via" not in first
    assert (second["skill"], second["via"]) == ("skill:tidy@global", "skill:old@global")
