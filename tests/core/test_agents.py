from pathlib import Path

import pytest

from exobrain.agents import AGENTS, get_agent, optional_dir
from exobrain.agents import more as more_rows
from exobrain.errors import UsageError

DOCS = Path(__file__).resolve().parents[2] / "knowledge/exobrain/agents.md"


def more_names() -> set[str]:
    return {a.name for a in more_rows.ROWS}


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
    assert len({a.name for a in AGENTS}) == len(AGENTS)


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
        "windsurf": (6000, None),  # Windsurf truncates a rules file after 6,000 characters
        # nothing documented: the default, and `why` says so
        **dict.fromkeys(
            (
                "cline",
                "roo",
                "kiro",
                "goose",
                "qwen",
                "droid",
                "kilo",
                "augment",
                "qoder",
                "vibe",
                "pi",
            ),
            (8000, None),
        ),
    }
    assert all(a.budget.why for a in AGENTS)
    assert all("none documented" in a.budget.why for a in more_rows.ROWS if a.name != "windsurf")
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
        "windsurf": repo / ".windsurf/rules/exobrain-skills.md",
        "cline": repo / ".cline/rules/exobrain-skills.md",
        "roo": repo / ".roo/rules/exobrain-skills.md",
        "kiro": repo / ".kiro/steering/exobrain-skills.md",
        # these read only files of the user's (AGENTS.md, .goosehints): the index file alone
        **dict.fromkeys(("goose", "qwen", "droid", "kilo", "augment", "qoder", "vibe", "pi")),
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


def test_the_table_has_twenty_agents_each_with_its_documentation_cited():
    """Every row names the page where the agent documents its skills folders, and
    agents.md cites the same page beside the agent (issue 34 item 6)."""
    assert len(AGENTS) >= 20
    docs = DOCS.read_text(encoding="utf-8")
    for agent in AGENTS:
        assert agent.source.startswith("https://"), agent.name
        row = next(line for line in docs.splitlines() if line.startswith(f"| `{agent.name}` |"))
        assert agent.source in docs, f"{agent.name}: {agent.source} is not cited in agents.md"
        assert agent.project_skills is None or f"`{agent.project_skills}`" in row, agent.name


def test_the_later_agents_read_the_folders_their_documentation_names(tmp_path, isolated_home):
    repo = tmp_path / "repo"
    reads = {
        name: [str(p.relative_to(repo)) for p in get_agent(name).folders(repo).reads]
        for name in sorted(more_names())
    }
    assert reads == {
        "augment": [".augment/skills", ".claude/skills"],
        "cline": [".cline/skills", ".clinerules/skills"],
        "droid": [".factory/skills"],
        "goose": [".goose/skills", ".claude/skills", ".agents/skills"],
        "kilo": [".kilo/skills", ".agents/skills"],
        "kiro": [".kiro/skills"],
        "pi": [".pi/skills", ".agents/skills"],
        "qoder": [".qoder/skills"],
        "qwen": [".qwen/skills"],
        "roo": [".roo/skills", ".agents/skills"],
        "vibe": [".vibe/skills", ".agents/skills"],
        "windsurf": [".windsurf/skills", ".agents/skills"],
    }
    user = {
        name: [str(p.relative_to(isolated_home)) for p in get_agent(name).folders(repo, True).reads]
        for name in ("windsurf", "goose", "pi", "droid")
    }
    assert user == {
        "windsurf": [".codeium/windsurf/skills", ".agents/skills"],
        "goose": [".config/goose/skills", ".claude/skills", ".config/agents/skills"],
        "pi": [".pi/agent/skills", ".agents/skills"],
        "droid": [".factory/skills"],
    }
