import pytest

from exobrain.agents import AGENTS, get_agent, optional_dir
from exobrain.errors import UsageError


def test_unknown_agent_lists_the_known_ones():
    with pytest.raises(UsageError) as info:
        get_agent("vim")
    assert "claude" in str(info.value) and "openclaw" in str(info.value)


def test_folders_honour_agent_variables(tmp_path, monkeypatch, isolated_home):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("OPENCLAW_WORKSPACE", str(tmp_path / "ow"))
    repo = tmp_path / "repo"
    assert get_agent("claude").skills_dir(repo) == repo / ".claude/skills"
    assert get_agent("claude").skills_dir(repo, user=True) == tmp_path / "cc/skills"
    assert get_agent("codex").skills_dir(repo, user=True) == tmp_path / "cx/skills"
    assert get_agent("openclaw").skills_dir(repo) == tmp_path / "ow/skills"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert get_agent("claude").skills_dir(repo, user=True) == isolated_home / ".claude/skills"
    assert (
        get_agent("opencode").skills_dir(repo, user=True)
        == isolated_home / ".config/opencode/skills"
    )
    assert optional_dir(repo / ".claude/skills") == repo / ".claude/skills-optional"


def test_codex_and_agents_share_a_project_folder(tmp_path):
    assert get_agent("codex").skills_dir(tmp_path) == get_agent("agents").skills_dir(tmp_path)
    assert len({a.name for a in AGENTS}) == len(AGENTS) == 8
