"""Context budgets: on a 500-skill repository where every skill is optional, what each of the
eight agents reads every session stays within its budget, the overflow file lists the rest,
and connect-agent says so. Same-named skills are told apart in the index."""

import re
import shutil
from pathlib import Path

import pytest

from exobrain.agents import AGENTS, get_agent
from exobrain.connect.budgets import SUMMARY_FLOOR, fit, within
from exobrain.connect.indexes import GENERATED_MARK, IndexRow, distinguish, optional_index
from tests.support.helpers import build_tree, connected, exobrain, optional_exobrain, skill_md

SKILLS = 500
WORDS = "Analyse, plot and summarise the results of an experiment when the user asks for it"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """An exobrain with 500 forced optional global skills with real-length descriptions."""
    root = tmp_path_factory.mktemp("budget") / "repo"
    return optional_exobrain(root, SKILLS, lambda n: f"{WORDS} (case {n}); {WORDS.lower()}.")


#: What each agent reads every session, relative to the repository (OpenClaw: its workspace).
SURFACE = {
    "claude": ".claude/optional-skills.md",
    "codex": "AGENTS.override.md",
    "openclaw": "USER.md",
    "gemini": ".gemini/optional-skills.md",
    "opencode": ".opencode/optional-skills.md",
    "copilot": ".github/instructions/exobrain-skills.instructions.md",
    "cursor": ".cursor/rules/exobrain-skills.mdc",
    "agents": ".agents/optional-skills.md",
    "windsurf": ".windsurf/rules/exobrain-skills.md",
    "cline": ".cline/rules/exobrain-skills.md",
    "roo": ".roo/rules/exobrain-skills.md",
    "kiro": ".kiro/steering/exobrain-skills.md",
    "goose": ".goose/optional-skills.md",
    "qwen": ".qwen/optional-skills.md",
    "droid": ".factory/optional-skills.md",
    "kilo": ".kilo/optional-skills.md",
    "augment": ".augment/optional-skills.md",
    "qoder": ".qoder/optional-skills.md",
    "vibe": ".vibe/optional-skills.md",
    "pi": ".pi/optional-skills.md",
}
OVERFLOW = {
    "claude": ".claude",
    "codex": ".codex",
    "openclaw": "",
    "gemini": ".gemini",
    "opencode": ".opencode",
    "copilot": ".github",
    "cursor": ".cursor",
    "agents": ".agents",
    **{
        name: str(Path(SURFACE[name]).parts[0])
        for name in list(SURFACE)[8:]  # the later agents: the overflow beside the surface
    },
}


def listed(text):
    return re.findall(r"^\| (skill-\d{3}) \|", text, flags=re.M)


@pytest.mark.parametrize("name", [a.name for a in AGENTS])
def test_every_agent_stays_within_its_budget_and_the_overflow_lists_the_rest(
    template, tmp_path, isolated_home, name
):
    root = shutil.copytree(template, tmp_path / "repo", symlinks=True)
    workspace = isolated_home / ".openclaw/workspace"
    base = workspace if name == "openclaw" else root
    if name == "openclaw":  # the user's own text counts against USER.md's budget
        build_tree(workspace, {"USER.md": "# About me\n" + "I like tea. " * 100 + "\n"})
    result = connected(root, name)
    agent = get_agent(name)
    surface = (base / SURFACE[name]).read_text()
    size = len(surface.encode())
    assert size <= agent.budget.size, (name, size)
    if agent.budget.lines:
        assert surface.count("\n") <= agent.budget.lines
    overflow = base / OVERFLOW[name] / "optional-skills-more.md"
    shown, more = listed(surface), listed(overflow.read_text())
    assert shown and more and not set(shown) & set(more)
    assert sorted(shown + more) == [f"skill-{i:03d}" for i in range(SKILLS)]
    where = str(overflow) if name == "openclaw" else str(overflow.relative_to(root))
    text = " ".join(surface.split())
    assert f"{len(more)} more optional skills are not in this list" in text
    assert f"or read {where}, which lists them all." in text
    # no MCP server registered here: the agent is told the command (outside the clone: --repo)
    repo = f" --repo {root}" if name == "openclaw" else ""
    assert f"find one with `exobrain search --json{repo} QUERY`" in text
    # no summary is cut below the floor, however many rows are left out
    summaries = re.findall(r"^\| skill-\d{3} \| [^|]+ \| (.*) \|$", surface, flags=re.M)
    assert summaries and min(map(len, summaries)) >= SUMMARY_FLOOR - 2, name
    assert overflow.read_text().startswith(GENERATED_MARK)
    warning = " ".join(result.stderr.split())
    assert (
        f"{len(more)} of {SKILLS} optional skills did not fit the context budget of {name}"
        in warning
    )
    # a second run changes nothing
    assert "~ updated" not in connected(root, name, "--relink").output


def test_the_codex_budget_follows_project_doc_max_bytes(template, tmp_path, isolated_home):
    root = shutil.copytree(template, tmp_path / "repo", symlinks=True)
    build_tree(isolated_home / ".codex", {"config.toml": "project_doc_max_bytes = 16384\n"})
    result = connected(root, "codex")
    assert len((root / "AGENTS.override.md").read_bytes()) <= 16384 - 2048
    assert "(14,336 bytes: Codex's project_doc_max_bytes (16384 in config.toml)" in " ".join(
        result.stderr.split()
    )


def test_a_small_repository_is_listed_whole_with_full_summaries(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "tidy", "owner": "o", "tier": "optional", "force": True}]},
        skills={"global/tidy": skill_md("tidy", "Tidy the repository. " * 6)},
    )
    result = connected(root, "copilot")
    text = (root / ".github/instructions/exobrain-skills.instructions.md").read_text()
    assert "| tidy | skills/tidy/SKILL.md | Tidy the repository. Tidy" in text
    assert "more optional skill" not in text and "did not fit" not in result.stderr
    assert not (root / ".github/optional-skills-more.md").exists()


def test_rows_of_one_name_are_told_apart_by_their_home(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [{"name": "docx", "owner": "o", "tier": "optional", "force": True}],
            "people/dana": [{"name": "docx", "owner": "dana", "tier": "optional"}],
        },
        scopes=["people/dana"],
        skills={"global/docx": None, "people/dana/docx": None},
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )
    connected(root, "claude")
    text = (root / ".claude/optional-skills.md").read_text()
    assert "| docx · global | skills/docx/SKILL.md |" in text
    assert "| docx · people/dana | people/dana/skills/docx/SKILL.md |" in text
    rows = [
        IndexRow("docx", "a", "s", "people/dana"),
        IndexRow("docx", "b", "s", "external anthropic"),
    ]
    assert [r.name for r in distinguish(rows)] == [
        "docx · people/dana",
        "docx · external anthropic",
    ]


def test_fit_cuts_summaries_before_it_leaves_rows_out():
    rows = [IndexRow(f"s{i}", f"p{i}", "word " * 30, "global") for i in range(20)]
    full = len(optional_index(rows).encode())

    def render(shown, hidden):
        return optional_index(shown, f"{hidden} more" if hidden else None)

    whole = fit(rows, render, full)
    assert whole.summary == 160 and not whole.overflow
    compact = fit(rows, render, full - 500)
    assert compact.summary < 160 and not compact.overflow and within(compact.text, full - 500, None)
    tight = fit(rows, render, 800)
    assert tight.overflow and len(tight.shown) + len(tight.overflow) == 20
    assert within(tight.text, 800, None) and not tight.over
    assert fit(rows, render, 10).over  # not even the heading fits
