"""The knowledge skill skills/recent-quality-skills: its commands, run as written, answer from
live data (the scenario in its folder is the proof the authoring gate asks for)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.gate.proof import judge
from exobrain.skillmd import read_skill
from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git

SKILL = ROOT / "skills" / "recent-quality-skills"
SCENARIO = json.loads((SKILL / "tests" / "scenario.json").read_text("utf-8"))


def commands() -> list[str]:
    """The exobrain command lines of the SKILL.md's bash blocks, in order."""
    body = read_skill(SKILL / "SKILL.md").body
    blocks = re.findall(r"```bash\n(.*?)```", body, re.S)
    return [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip().startswith("exobrain ")
    ]


def skill_text(name: str, spec: dict) -> str:
    import yaml

    meta = {
        "name": name,
        "description": spec["description"],
        "version": "1.0.0",
        "tags": spec.get("tags", []),
    }
    if spec.get("links"):
        meta["links"] = spec["links"]
    return f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n# {name}\n\nSteps.\n"


def entry(name: str, lifecycle: str = "active") -> dict:
    return {
        "name": name,
        "owner": "lab",
        "tier": "optional",
        "force": True,
        **({"lifecycle": lifecycle} if lifecycle != "active" else {}),
    }


@pytest.fixture
def scenario(tmp_path):
    skills = SCENARIO["skills"]
    root = exobrain(
        tmp_path / "repo",
        {"global": [entry(n) for n in skills]},
        skills={f"global/{n}": skill_text(n, s) for n, s in skills.items()},
    )
    base = git(root, "rev-parse", "HEAD").strip()
    change = SCENARIO["change"]
    entries = [entry(n, "deprecated" if n in change["deprecate"] else "active") for n in skills]
    entries += [entry(n) for n in change["add"]]
    tree = {"skills.json": {"skills": entries}}
    for name, spec in change["add"].items():
        tree[f"skills/{name}/SKILL.md"] = skill_text(name, spec)
    for name in change["edit"]:
        tree[f"skills/{name}/SKILL.md"] = skill_text(name, skills[name]) + "\nMore steps.\n"
    from exobrain.signals.ledger import dump_line, make_signal

    for ref, count in SCENARIO["votes"].items():  # each voter in their own ledger
        for i in range(count):
            vote = dump_line(make_signal("vote", ref, 1, by=f"voter{i}", host="laptop", at=1.7e9))
            path = f"signals/voter{i}/laptop.jsonl"
            tree[path] = tree.get(path, "") + vote
            tree[f"people/voter{i}/AGENTS.md"] = f"# voter{i}\n"  # a person, so it counts
    build_tree(root, tree)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a week of work")
    return root, base


def run(root: Path, line: str, **values: str) -> object:
    for key, value in values.items():
        line = line.replace(f"<{key}>", value)
    assert "<" not in line, f"unfilled placeholder in {line!r}"
    args = shlex.split(line)[1:]
    result = CliRunner().invoke(main, [*args, "--repo", str(root)])
    assert result.exit_code == 0, f"{line}\n{result.output}"
    return json.loads(result.stdout)


def test_the_skill_is_a_declared_knowledge_skill_with_proof():
    meta = read_skill(SKILL / "SKILL.md").meta
    assert meta["requires_substrate_access"] is True
    declared = json.loads((ROOT / "skills.json").read_text("utf-8"))["skills"]
    assert any(e["name"] == "recent-quality-skills" for e in declared)
    scenario = (SKILL / "tests" / "scenario.json").read_bytes()
    assert judge("tests/scenario.json", scenario).counts  # its proof for the authoring gate
    verbs = [line.split()[1] for line in commands()]
    assert verbs == ["events", "search", "list", "links"]


def test_its_commands_answer_from_live_data(scenario):
    root, base = scenario
    expect = SCENARIO["expect"]
    topic = SCENARIO["topic"]
    events_cmd, search_cmd, list_cmd, links_cmd = commands()

    events = run(root, events_cmd, since=base)["events"]
    recent = sorted(e["ref"] for e in events if e["type"] in ("skill.added", "skill.updated"))
    assert recent == expect["recent"]
    voted = {e["ref"] for e in events if e["type"] == "signal"}
    assert voted == set(SCENARIO["votes"])
    deprecated = [
        e["ref"] for e in events if e["type"] == "skill.lifecycle" and e["to"] == "deprecated"
    ]
    assert deprecated == expect["deprecated"]

    hits = [h["ref"] for h in run(root, search_cmd, topic=topic)["hits"]]
    assert set(expect["search_includes"]) <= set(hits[: len(expect["search_includes"]) + 1])
    assert not set(expect["search_excludes"]) & set(hits)
    old = hits.index("skill:old-docking@global") if "skill:old-docking@global" in hits else None
    assert old is None or old > hits.index("skill:flex-docking@global")  # deprecated is lower

    tagged = run(root, list_cmd, topic=topic)
    assert [row["ref"] for row in tagged] == expect["tagged"]  # best quality first
    assert tagged[0]["quality"] > tagged[1]["quality"] > tagged[2]["quality"]

    for ref, sides in expect["links"].items():
        links = run(root, links_cmd, ref=ref)
        if "outgoing" in sides:
            assert [link["ref"] for link in links["outgoing"]] == sides["outgoing"]
        if "incoming" in sides:
            assert [link["source"] for link in links["incoming"]] == sides["incoming"]
