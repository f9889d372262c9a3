"""What the index shows when not every optional skill fits (issue 34, "budgets from the
loaders"): summaries never cut below a readable floor, the rows shown chosen by quality, usage
and closeness, and a closing line that says how to reach the rest — the MCP ``search`` tool
where the exobrain server is registered for the agent, else ``exobrain search``."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from exobrain.connect.budgets import SUMMARY_FLOOR, fit, within
from exobrain.connect.indexes import (
    MCP_SEARCH,
    IndexRow,
    more_line,
    optional_index,
    shortened,
)
from exobrain.connect.scoring import closeness, combined
from exobrain.skillmd import one_line
from tests.support.helpers import connected, optional_exobrain
from tests.support.signal_helpers import sig, write

WORDS = (
    "Analyse, plot and summarise the results of an experiment when the user asks for it, "
    "with the tables and the figures a reviewer expects"
)


def rows_of(count: int) -> list[IndexRow]:
    return [
        IndexRow(
            f"skill-{i:03d}",
            f"skills/skill-{i:03d}/SKILL.md",
            one_line(f"{WORDS} (case {i})", 160),
            "global",
            f"skill:skill-{i:03d}@global",
        )
        for i in range(count)
    ]


def render(shown, hidden):
    return optional_index(
        shown, more_line(hidden, ".claude/optional-skills-more.md") if hidden else None
    )


def test_with_402_optional_skills_no_summary_is_cut_below_the_floor():
    rows = rows_of(402)
    result = fit(rows, render, 8000, 200)
    assert result.overflow and len(result.shown) + len(result.overflow) == 402
    assert result.summary == SUMMARY_FLOOR == 80
    by_path = {row.path: row for row in rows}
    for row in result.shown:  # each summary is its full one cut at the floor, no shorter
        assert row.summary == one_line(by_path[row.path].summary, SUMMARY_FLOOR)
        assert len(row.summary) >= SUMMARY_FLOOR - 2
    assert within(result.text, 8000, 200) and not result.over
    assert "402" not in result.text.split("more optional")[0][-5:]  # the count is of the rest
    assert f"{len(result.overflow)} more optional skills are not in this list" in result.text


def test_the_rows_shown_are_the_top_scored_and_scores_are_asked_only_when_needed():
    rows = rows_of(402)
    scores = {row.path: ((i * 37) % 402) / 402 for i, row in enumerate(rows)}
    asked = []

    def scorer():
        asked.append(True)
        return scores

    result = fit(rows, render, 8000, 200, scorer)
    best = sorted(rows, key=lambda row: -scores[row.path])[: len(result.shown)]
    assert {row.path for row in result.shown} == {row.path for row in best}
    assert min(scores[r.path] for r in result.shown) > max(scores[r.path] for r in result.overflow)
    assert asked == [True]
    small = fit(rows[:3], render, 8000, 200, scorer)  # everything fits: no scores needed
    assert not small.overflow and small.summary == 160 and asked == [True]


def test_without_scores_the_closest_come_first():
    far = [
        IndexRow(f"far-{i}", f"x/far-{i}/SKILL.md", WORDS, "external anthropic") for i in range(8)
    ]
    rows = [
        *far,
        IndexRow("near", "people/dana/skills/near/SKILL.md", WORDS, "people/dana"),
        IndexRow("mid", "skills/mid/SKILL.md", WORDS, "global"),
    ]
    two = len(render(shortened(rows[-2:], SUMMARY_FLOOR), 8).encode())
    result = fit(rows, render, two)
    assert [row.name for row in result.shown] == ["near", "mid"]
    assert [row.name for row in result.overflow] == [f"far-{i}" for i in range(8)]


def test_the_score_is_quality_usage_and_closeness():
    chain = ["global", "groups/acme", "people/dana"]
    assert closeness("people/dana", chain) == 1.0
    assert closeness("global", chain) == pytest.approx(1 / 3)
    assert closeness("external anthropic", chain) == closeness("groups/other", chain) == 0.0
    assert combined(0.9, 0.9, 0.0) > combined(0.2, 0.0, 1.0)  # a much used, well rated skill
    assert combined(0.2, 0.0, 1.0) > combined(0.2, 0.0, 0.3)  # else the closest


def test_the_closing_line_names_the_mcp_tool_or_the_command():
    assert "find one with `exobrain search --json QUERY`" in more_line(3, "x.md")
    line = more_line(3, "x.md", MCP_SEARCH)
    assert "find one with the `search` tool of the exobrain MCP server" in line
    assert "or read x.md, which lists them all." in line
    assert more_line(1, "x.md").startswith("1 more optional skill are")


# --- on a repository ----------------------------------------------------------------------

COUNT = 402


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """402 forced optional global skills with real-length descriptions; dana connected."""
    root = tmp_path_factory.mktemp("fitting") / "repo"
    return optional_exobrain(root, COUNT, lambda n: f"{WORDS} (case {n}).")


def shown_names(root: Path, surface: str = ".claude/optional-skills.md") -> list[str]:
    return re.findall(r"^\| (skill-\d{3}) \|", (root / surface).read_text(), flags=re.M)


def test_the_skills_people_use_and_rate_are_shown(template, tmp_path):
    root = shutil.copytree(template, tmp_path / "repo", symlinks=True)
    connected(root, "claude")
    before = shown_names(root)
    assert len(before) < COUNT
    # the last skills by name, never shown before: used and up-voted by dana
    favourites = [f"skill-{i:03d}" for i in range(COUNT - 5, COUNT)]
    assert not set(favourites) & set(before)
    lines = []
    for name in favourites:
        ref = f"skill:{name}@global"
        lines += [sig("usage", ref, 1, days, by="dana") for days in (1, 2, 3)]
        lines.append(sig("vote", ref, 1, 1, by="dana"))
    write(root, lines)
    connected(root, "claude", "--relink")
    after = shown_names(root)
    assert set(favourites) <= set(after)
    assert len(after) == len(before)


def _trust_codex(root: Path) -> None:
    home = Path(os.environ["CODEX_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[projects.{json.dumps(str(root))}]\ntrust_level = "trusted"\n'
    )


@pytest.mark.parametrize(
    ("agent", "surface"),
    [("claude", ".claude/optional-skills.md"), ("codex", "AGENTS.override.md")],
)
def test_with_the_mcp_server_registered_the_index_points_at_its_search_tool(
    template, tmp_path, agent, surface
):
    root = shutil.copytree(template, tmp_path / "repo", symlinks=True)
    connected(root, agent)
    text = " ".join((root / surface).read_text().split())
    assert "find one with `exobrain search --json QUERY`" in text and MCP_SEARCH not in text
    connected(root, agent, "--mcp")  # the first run with --mcp already says so
    text = " ".join((root / surface).read_text().split())
    if agent == "codex":  # Codex ignores the project's config until the project is trusted
        assert "exobrain search --json QUERY" in text
        _trust_codex(root)
        connected(root, agent, "--relink")
        text = " ".join((root / surface).read_text().split())
    assert f"find one with {MCP_SEARCH}, or read" in text
    assert "exobrain search" not in text
    assert "~ updated" not in connected(root, agent, "--relink").output  # and it stays so
