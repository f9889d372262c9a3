"""Recording a signal: uses and outcomes of a superseded skill count for its successor."""

from __future__ import annotations

import json

from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.signals.record import successor_of
from exobrain.workspace import open_workspace
from tests.support.helpers import exobrain, skill_md


def repo_with(tmp_path, supersedes: dict[str, str], archived: tuple[str, ...] = ()):
    names = ["old", "new", "newer"]
    skills = {
        f"global/{n}": skill_md(n, **({"links": f"{{supersedes: ['skill:{supersedes[n]}']}}"}
                                     if n in supersedes else {}))
        for n in names
    }  # fmt: skip
    entries = [
        {
            "name": n,
            "owner": "ops",
            "tier": "optional",
            "force": True,
            **({"lifecycle": "archived"} if n in archived else {}),
        }
        for n in names
    ]
    return exobrain(tmp_path / "repo", {"global": entries}, skills=skills)


def lines(repo) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((repo / "signals").glob("*/*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def run(repo, *args: str):
    return CliRunner().invoke(main, [*args, "--repo", str(repo)])


def test_usage_and_outcome_of_a_superseded_skill_go_to_its_last_successor(tmp_path):
    repo = repo_with(tmp_path, {"new": "old", "newer": "new"})
    used = run(repo, "signal", "usage", "skill:old", "--agent", "claude")
    assert used.exit_code == 0, used.output
    assert "on skill:newer@global (used as skill:old@global, which it supersedes)" in used.output
    run(repo, "signal", "calibration", "skill:new", "failed", "--note", "broke")
    run(repo, "signal", "vote", "skill:old", "down")
    usage, outcome, vote = lines(repo)
    assert (usage["skill"], usage["via"]) == ("skill:newer@global", "skill:old@global")
    assert (outcome["skill"], outcome["via"]) == ("skill:newer@global", "skill:new@global")
    assert vote["skill"] == "skill:old@global" and "via" not in vote
    quality = run(repo, "signals", "skill:newer", "--json")
    assert json.loads(quality.output)["aggregate"]["usage"]["uses"] == 1


def test_an_archived_successor_is_skipped_and_a_cycle_redirects_nothing(tmp_path):
    archived = repo_with(tmp_path / "a", {"new": "old", "newer": "new"}, archived=("newer",))
    assert successor_of(open_workspace(archived), "skill:old@global") == "skill:new@global"
    cycle = repo_with(tmp_path / "b", {"new": "old", "old": "new"})
    assert successor_of(open_workspace(cycle), "skill:old@global") is None
    plain = repo_with(tmp_path / "c", {})
    assert successor_of(open_workspace(plain), "skill:old@global") is None
