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
    assert get_agent("claude").folders(repo).skills == repo / ".claude/skills"
    assert get_agent("claude").folders(repo, user=True).skills == tmp_path / "cc/skills"
    assert get_agent("codex").folders(repo, user=True).skills == tmp_path / "cx/skills"
    assert get_agent("openclaw").folders(repo).skills == tmp_path / "ow/skills"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert get_agent("claude").folders(repo, user=True).skills == isolated_home / ".claude/skills"
    assert (
        get_agent("opencode").folders(repo, user=True).skills
        == isolated_home / ".config/opencode/skills"
    )
    assert optional_dir(repo / ".claude/skills") == repo / ".claude/skills-optional"


def test_codex_and_agents_share_a_project_folder(tmp_path):
    assert (
        get_agent("codex").folders(tmp_path).skills == get_agent("agents").folders(tmp_path).skills
    )
    assert len({a.name for a in AGENTS}) == len(AGENTS) == 8


def test_every_agent_carries_a_budget_and_a_file_it_reads(tmp_path, isolated_home):
    budgets = {a.name: (a.budget.size, a.budget.lines) for a in AGENTS}
    assert budgets == {
        "claude": (8000, 200),
        "codex": (28 * 1024, None),  # 32 KiB project_doc_max_bytes less 4 KiB
        "openclaw": (12000, None),
        "gemini": (8000, None),
        "opencode": (8000, None),
        "copilot": (4000, None),
        "cursor": (6000, 500),
        "agents": (8000, None),
    }
    assert all(a.budget.why for a in AGENTS)
    repo = tmp_path / "repo"
    surfaces = {a.name: a.folders(repo).surface for a in AGENTS}
    assert surfaces == {
        "claude": repo / ".claude/CLAUDE.md",
        "codex": repo / "AGENTS.override.md",
        "openclaw": isolated_home / ".openclaw/workspace/USER.md",
        "gemini": repo / "GEMINI.md",
        "opencode": repo / ".opencode/opencode.json",
        "copilot": repo / ".github/instructions/exobrain-skills.instructions.md",
        "cursor": repo / ".cursor/rules/exobrain-skills.mdc",
        "agents": None,
    }
    home = isolated_home
    assert get_agent("gemini").folders(repo, user=True).surface == home / ".gemini/GEMINI.md"
    assert get_agent("copilot").folders(repo, user=True).surface == (
        home / ".copilot/instructions/exobrain-skills.instructions.md"
    )
    assert get_agent("cursor").folders(repo, user=True).surface is None  # rules live in settings
    # codex's generated files stay out of .agents, which it shares with `agents`
    assert get_agent("codex").folders(repo).files == repo / ".codex"
    assert get_agent("agents").folders(repo).files == repo / ".agents"
