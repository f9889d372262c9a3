"""The loaders' own listing of the linked skills (issue 34): Claude Code and Codex list every
skill of their folders with its description within a budget of their own and cut past it
without a word, so connect-agent warns, naming the skills, when the linked skills' descriptions
are over that budget or one is longer than the loader lists of one skill."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.agents import get_agent
from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.listing import entries, listing_for
from tests.support.helpers import build_tree, exobrain, skill_md

TEXT = "Tidy the experiment's results into tables and figures when the user asks for it. "


def repo(tmp_path: Path, count: int, length: int, tier: str = "always", **extra: str) -> Path:
    names = [f"skill-{i:02d}" for i in range(count)]
    return exobrain(
        tmp_path / "repo",
        registries={
            "global": [{"name": n, "owner": "o", "tier": tier, "force": True} for n in names]
        },
        skills={
            f"global/{n}": skill_md(n, (f"{n} " + TEXT * 40)[:length].strip(), **extra)
            for n in names
        },
    )


def warnings(root: Path, agent: str, *args: str) -> str:
    result = CliRunner().invoke(connect_cmd, [agent, *args, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return " ".join(result.stderr.split())


def test_the_table_has_the_measured_listing_figures():
    claude, codex = get_agent("claude").listing, get_agent("codex").listing
    assert (claude.size, claude.entry) == (8000, 1536)
    assert (codex.size, codex.entry) == (8000, 1024)
    assert claude.reserved and codex.reserved


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_a_few_skills_fit_without_a_word(tmp_path, agent):
    root = repo(tmp_path, 5, 200)
    assert "skill listing" not in warnings(root, agent)


@pytest.mark.parametrize(
    ("agent", "loses"),
    [
        ("claude", "claude lists the ones it used least by name only"),
        ("codex", "codex shortens every description, then drops them"),
    ],
)
def test_too_many_descriptions_are_a_warning_naming_the_longest(tmp_path, agent, loses):
    root = repo(tmp_path, 30, 400)
    said = warnings(root, agent)
    assert f"the 30 skills linked for {agent} take" in said
    assert "characters of its skill listing" in said and loses in said
    assert "The longest: skill-00 (" in said and "and 22 more" in said
    assert "make some optional, or shorten their descriptions" in said


@pytest.mark.parametrize(("agent", "cap"), [("claude", 1536), ("codex", 1024)])
def test_a_description_longer_than_the_loader_lists_is_a_warning(tmp_path, agent, cap):
    root = repo(tmp_path, 1, cap + 100)
    said = warnings(root, agent)
    assert f"skill-00 ({cap + 100:,}): longer than the {cap:,} characters {agent} lists" in said
    assert "skill listing" not in said  # one skill is within the budget


def test_claudes_when_to_use_counts_with_the_description(tmp_path):
    root = repo(tmp_path, 1, 1000, when_to_use="Use it " + "again and again " * 40)
    assert "longer than the 1,536 characters claude lists" in warnings(root, "claude")
    assert "longer than" not in warnings(root, "codex")


def test_the_agents_own_settings_move_the_budget(tmp_path, isolated_home, monkeypatch):
    root = repo(tmp_path, 30, 400)
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "40000")
    assert "skill listing" not in warnings(root, "claude")
    monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    build_tree(root, {".claude/settings.json": {"skillListingBudgetFraction": 0.05}})
    assert "skill listing" not in warnings(root, "claude", "--relink")
    config = Path(os.environ["CODEX_HOME"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("model_context_window = 1000000\n")  # 2% of it: 80,000 characters
    assert "skill listing" not in warnings(root, "codex")
    config.write_text("[skills]\nmax_context_tokens = 500\n")  # 2,000 characters
    said = warnings(root, "codex", "--relink")
    assert "([skills] max_context_tokens = 500 in" in said


def test_name_only_skills_count_by_their_names(tmp_path):
    """With --native-tiers every optional skill is listed by name: 400 of them are over
    Claude Code's listing budget by themselves (measured: its always skills then lost their
    descriptions)."""
    root = repo(tmp_path, 400, 300, tier="optional")
    assert "skill listing" not in warnings(root, "claude")  # in the index: not in its listing
    said = warnings(root, "claude", "--native-tiers")
    assert "the 400 skills linked for claude take" in said
    names = {f"skill-{i:02d}": root / f"skills/skill-{i:02d}" for i in range(400)}
    listed = entries("claude", names, dict.fromkeys(names, "name-only"))
    assert sum(e.size for e in listed) == sum(len(f"- {n}") + 1 for n in names)
    assert entries("claude", names, dict.fromkeys(names, "off")) == []


def test_the_listing_of_an_unmeasured_agent_is_not_checked(tmp_path):
    agent = get_agent("gemini")
    assert agent.listing is None and listing_for(agent.folders(tmp_path)) is None


def test_codex_entries_carry_the_file(tmp_path):
    folder = build_tree(tmp_path, {"tidy/SKILL.md": skill_md("tidy", "Tidy up.")}) / "tidy"
    (entry,) = entries("codex", {"tidy": folder})
    assert entry.size == len("- tidy: Tidy up. (file: r1/tidy/SKILL.md)") + 1
    (claude,) = entries("claude", {"tidy": folder})
    assert claude.size == len("- tidy: Tidy up.") + 1
    assert json.dumps(claude.__dict__)  # plain data
