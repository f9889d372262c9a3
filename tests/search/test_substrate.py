"""The read-only substrate verbs (get, list, links, events) and discover."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from tests.support.helpers import build_tree, exobrain, git, mtimes


def skill(name: str, description: str, **front: str) -> str:
    lines = ["---", f"name: {name}", f"description: {description}"]
    lines += [f"{k}: {v}" for k, v in front.items()]
    return "\n".join(lines) + f"\n---\n# {name}\n\nSteps for {name}.\n"


SKILLS = {
    "dock-ligands": skill(
        "dock-ligands",
        "Dock ligands into a receptor pocket and rank the poses.",
        version="1.2.0",
        tags="[chemistry]",
        personas="[chemist]",
        triggers="[dock a ligand, rank docking poses]",
        dependencies="{tools: [no-such-tool-xyz], skills: ['skill:prep-receptor']}",
        links="{uses_skill: ['skill:prep-receptor'], supersedes: ['skill:old-docking']}",
    ),
    "prep-receptor": skill(
        "prep-receptor",
        "Prepare a receptor structure for docking.",
        version="1.10.0",
        tags="[chemistry]",
    ),
    "old-docking": skill(
        "old-docking", "Dock ligands the old way.", version="0.9.0", tags="[chemistry]"
    ),
    "needs-missing": skill(
        "needs-missing",
        "Dock ligands with a helper that is gone.",
        dependencies="{skills: ['skill:does-not-exist']}",
    ),
    "bio-only": skill("bio-only", "Dock ligands for biologists only.", personas="[biologist]"),
    "dock-report": skill(
        "dock-report",
        "Summarise ligand docking results in a report.",
        triggers="[write the weekly lab report]",
    ),
}
GUIDE = (
    "---\ntitle: Docking guide\ntags: [chemistry]\nlinks:\n  documents_artifact: "
    "['skill:dock-ligands@global']\n---\n# Docking guide\n\nHow we dock ligands.\n"
)


@pytest.fixture
def root(tmp_path):
    entries = [
        {
            "name": n,
            "owner": "ops",
            "tier": "optional",
            "force": True,
            **({"lifecycle": "deprecated"} if n == "old-docking" else {}),
        }
        for n in SKILLS
    ]
    repo = exobrain(
        tmp_path / "repo",
        {"global": entries},
        skills={f"global/{n}": t for n, t in SKILLS.items()},
        commit=False,
    )
    build_tree(repo, {"knowledge/chem/guide.md": GUIDE})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def run(root, *args):
    result = CliRunner().invoke(main, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def data(root, *args):
    code, out = run(root, *args, "--json")
    assert code == 0, out
    return json.loads(out)


def test_list_filters_and_sorts(root):
    rows = data(
        root,
        "list",
        "--types",
        "skill",
        "--filter",
        '{"in": ["chemistry", {"var": "content.tags"}]}',
        "--sort",
        "content.version:desc",
    )
    assert [r["name"] for r in rows] == ["prep-receptor", "dock-ligands", "old-docking"]
    assert rows[0]["hash"].startswith("h1:") and rows[0]["path"] == "skills/prep-receptor/SKILL.md"
    deprecated = data(root, "list", "--filter", '{"==": [{"var": "lifecycle"}, "deprecated"]}')
    assert [r["ref"] for r in deprecated] == ["skill:old-docking@global"]
    knowledge = data(root, "list", "--types", "knowledge")
    assert [(r["ref"], r["content"]["title"]) for r in knowledge] == [
        ("knowledge:chem/guide@global", "Docking guide")
    ]
    assert len(data(root, "list", "--limit", "2")) == 2
    code, out = run(root, "list", "--types", "skill,recipe")
    assert code == 2 and "--types" in out


def test_get_prints_content_body_and_links(root):
    row = data(root, "get", "skill:dock-ligands")
    assert row["ref"] == "skill:dock-ligands@global" and row["version"] == "1.2.0"
    assert row["content"]["tags"] == ["chemistry"]
    assert "Steps for dock-ligands." in row["body"]
    outgoing = {(link["predicate"], link["ref"]) for link in row["links"]["outgoing"]}
    assert outgoing == {
        ("uses_skill", "skill:prep-receptor@global"),
        ("supersedes", "skill:old-docking@global"),
    }
    assert row["links"]["incoming"] == []
    guide = data(root, "get", "knowledge:chem/guide")
    assert guide["type"] == "knowledge" and "How we dock ligands." in guide["body"]
    code, text = run(root, "get", "skill:dock-ligands")
    assert code == 0 and "uses_skill → skill:prep-receptor@global" in text


def test_links_both_ways_and_by_predicate(root):
    links = data(root, "links", "skill:prep-receptor")
    assert links["incoming"] == [{"predicate": "uses_skill", "source": "skill:dock-ligands@global"}]
    only = data(root, "links", "skill:dock-ligands", "--predicate", "supersedes")
    assert [link["target"] for link in only["outgoing"]] == ["skill:old-docking"]
    documented = data(root, "links", "knowledge:chem/guide@global")
    assert documented["outgoing"] == [
        {"predicate": "documents_artifact", "target": "skill:dock-ligands@global", "ref": None}
    ]
    code, out = run(root, "links", "skill:dock-ligands", "--predicate", "likes")
    assert code == 2 and "use one of" in out


def test_substrate_verbs_never_write_outside_the_cache(root):
    run(root, "list")  # build the cache first
    before = {
        k: v for k, v in mtimes(root).items() if "/.exobrain-cache" not in k and "/.git/" not in k
    }
    for args in (
        ["get", "skill:dock-ligands"],
        ["list"],
        ["links", "skill:dock-ligands"],
        ["events", "--since", "HEAD"],
        ["search", "dock"],
        ["discover", "--task", "dock a ligand"],
    ):
        assert run(root, *args)[0] == 0
    after = {
        k: v for k, v in mtimes(root).items() if "/.exobrain-cache" not in k and "/.git/" not in k
    }
    assert after == before
    assert git(root, "status", "--porcelain") == ""


def test_events_since_a_commit(root):
    base = git(root, "rev-parse", "HEAD").strip()
    registry = json.loads((root / "skills.json").read_text("utf-8"))
    for entry in registry["skills"]:
        if entry["name"] == "old-docking":
            entry["lifecycle"] = "archived"
    registry["skills"].append({"name": "new-skill", "owner": "ops", "tier": "optional"})
    text = SKILLS["prep-receptor"].replace("version: 1.10.0", "version: 1.11.0")
    build_tree(
        root,
        {
            "skills.json": registry,
            "skills/new-skill/SKILL.md": skill("new-skill", "Something new."),
            "skills/prep-receptor/SKILL.md": text,
            "knowledge/chem/faq.md": "# FAQ\n",
            "signals/alice/laptop.jsonl": json.dumps(
                {
                    "ts": "2026-01-02T00:00:00.000Z",
                    "skill": "skill:dock-ligands@global",
                    "kind": "vote",
                    "value": 1,
                    "by": "alice",
                }
            )
            + "\nnot json\n",
            "people/alice/AGENTS.md": "# alice\n",  # a person: her ledger counts
            # a folder naming no person (a stranger): its line is no event
            "signals/mallory/laptop.jsonl": json.dumps(
                {
                    "ts": "2026-01-02T00:00:00.000Z",
                    "skill": "skill:dock-ligands@global",
                    "kind": "vote",
                    "value": -1,
                    "by": "mallory",
                }
            )
            + "\n",
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "changes")
    answer = data(root, "events", "--since", base)
    assert answer["since"] == base and answer["head"] == git(root, "rev-parse", "HEAD").strip()
    assert answer["events"] == [
        {
            "type": "skill.added",
            "ref": "skill:new-skill@global",
            "lifecycle": "active",
            "tier": "optional",
            "owner": "ops",
        },
        {
            "type": "skill.lifecycle",
            "ref": "skill:old-docking@global",
            "from": "deprecated",
            "to": "archived",
        },
        {
            "type": "skill.updated",
            "ref": "skill:prep-receptor@global",
            "version": {"from": "1.10.0", "to": "1.11.0"},
        },
        {"type": "knowledge.added", "ref": "knowledge:chem/faq@global"},
        {
            "type": "signal",
            "ref": "skill:dock-ligands@global",
            "kind": "vote",
            "value": 1,
            "by": "alice",
            "ts": "2026-01-02T00:00:00.000Z",
        },
    ]
    assert data(root, "events", "--since", answer["head"])["events"] == []
    code, out = run(root, "events", "--since", "no-such-commit")
    assert code == 2 and "not a commit" in out
    code, out = run(root, "events", "--since", "--output=x")
    assert code == 2


def test_discover_filters_by_trigger_persona_and_dependencies(root):
    answer = data_discover(root, "--task", "dock a ligand into a receptor", "--lexical", "-k", "10")
    picks = {s["name"]: s for s in answer["skills"]}
    names = list(picks)
    assert picks["dock-ligands"]["missing_tools"] == ["no-such-tool-xyz"]
    assert picks["dock-ligands"]["matched_trigger"] == "dock a ligand"
    excluded = {e["ref"]: e["reason"] for e in answer["excluded"]}
    assert (
        excluded["skill:needs-missing@global"] == "needs skill:does-not-exist, which you cannot see"
    )
    assert excluded["skill:dock-report@global"] == "no trigger matches the task"
    assert "bio-only" in names  # no persona asked for
    chemist = data_discover(
        root,
        "--task",
        "dock a ligand into a receptor",
        "--lexical",
        "--persona",
        "chemist",
        "-k",
        "10",
    )
    chemist_names = [s["name"] for s in chemist["skills"]]
    assert "bio-only" not in chemist_names and "dock-ligands" in chemist_names
    assert "prep-receptor" in chemist_names  # names no personas: fits everyone


def data_discover(root, *args):
    code, out = run(root, "discover", *args, "--format", "json")
    assert code == 0, out
    return json.loads(out)


def test_discover_formats(root):
    code, out = run(root, "discover", "--task", "dock a ligand", "-k", "2", "--format", "prompt")
    assert code == 0
    assert out.startswith("<available_skills>") and "<name>\ndock-ligands\n</name>" in out
    assert str(root / "skills" / "dock-ligands" / "SKILL.md") in out
    code, out = run(root, "discover", "--task", "dock a ligand", "-k", "2")
    assert code == 0 and "1. **dock-ligands**" in out and "missing tools: no-such-tool-xyz" in out
    hybrid = data_discover(root, "--task", "fit a small molecule into a protein pocket")
    assert hybrid["mode"] == "hybrid" and hybrid["skills"]
    assert hybrid["encoders"] == ["minilm", "wordllama"]
    code, out = run(
        root, "discover", "--task", "fit a small molecule into a protein pocket", "--json"
    )
    assert code == 0 and json.loads(out) == hybrid  # --json is --format json


def test_discover_ranks_as_search_does_then_filters(root):
    """The same ranking as search, then the filters: what discover keeps is search's order
    minus what it excludes."""
    task = "score the poses of my docked compounds"
    found = data(root, "search", task, "-k", "40")["hits"]
    answer = data_discover(root, "--task", task, "-k", "5")
    excluded = {e["ref"] for e in answer["excluded"]}
    kept = [h["name"] for h in found if h["ref"] not in excluded][: len(answer["skills"])]
    assert [s["name"] for s in answer["skills"]] == kept
    assert answer["skills"][0]["name"] == "dock-ligands"


def test_a_trigger_close_in_meaning_matches_without_sharing_a_word(tmp_path):
    entries = [{"name": "k8s-debug", "owner": "ops", "tier": "optional", "force": True}]
    text = skill("k8s-debug", "Debug Kubernetes workloads.", triggers="[pod keeps restarting]")
    repo = exobrain(tmp_path / "repo", {"global": entries}, skills={"global/k8s-debug": text})
    task = ("--task", "my container crashes in a loop")
    hybrid = data_discover(repo, *task)
    assert [(s["name"], s["matched_trigger"]) for s in hybrid["skills"]] == [
        ("k8s-debug", "pod keeps restarting")
    ]
    lexical = data_discover(repo, *task, "--lexical")
    assert lexical["skills"] == [] or lexical["skills"][0]["name"] != "k8s-debug"
