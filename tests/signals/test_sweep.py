"""exobrain sweep deprecates exactly the skills whose signals stayed low over the window."""

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.signals.quality import load_weights
from exobrain.signals.sweep import plan_sweep
from exobrain.workspace import open_workspace
from tests.support import ROOT
from tests.support.helpers import build_tree, git, init_repo, skill_md
from tests.support.signal_helpers import DAY, NOW, sig, write

SOURCE = {"repo": "https://example.com/skills.git", "path": "skills/ext", "ref": "main"}
GLOBAL = [
    {"name": "unused", "owner": "al", "tier": "optional"},
    {"name": "loved", "owner": "al", "tier": "optional"},
    {"name": "busy", "owner": "al", "tier": "optional"},
    {"name": "fallen", "owner": "al", "tier": "optional"},
    {"name": "rusty", "owner": "al", "tier": "optional"},
    {"name": "retired", "owner": "al", "tier": "optional", "lifecycle": "deprecated"},
    {"name": "sketch", "owner": "al", "tier": "optional", "lifecycle": "draft"},
    {"name": "ext", "owner": "anthropic", "tier": "optional", "source": SOURCE},
]
FRESH = {"name": "fresh", "owner": "al", "tier": "optional"}


def registry_text(entries):
    """One entry per line, the house style."""
    return '{\n  "skills": [\n' + ",\n".join("    " + json.dumps(e) for e in entries) + "\n  ]\n}\n"


def set_git_date(monkeypatch, days_ago):
    stamp = f"{int(NOW - days_ago * DAY)} +0000"
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "exo"
    tree = {
        "skills.json": registry_text(GLOBAL),
        "groups/acme/AGENTS.md": "# acme\n",
        "groups/acme/skills.json": registry_text(
            [{"name": "lint", "owner": "bo", "tier": "optional"}]
        ),
        "groups/acme/skills/lint/SKILL.md": skill_md("lint"),
        ".exobrain.json": json.dumps({"connected_scopes": ["groups/acme"], "person": "al"}),
    }
    # every voter below is a person of the repository (a ledger of anyone else never counts)
    for person in ["al", "old", *(f"v{i}" for i in range(3)), *(f"f{i}" for i in range(4))]:
        tree[f"people/{person}/AGENTS.md"] = f"# {person}\n"
    for entry in [*GLOBAL, FRESH]:
        if "source" not in entry:
            tree[f"skills/{entry['name']}/SKILL.md"] = skill_md(entry["name"])
    build_tree(root, tree)
    set_git_date(monkeypatch, 200)
    init_repo(root)
    set_git_date(monkeypatch, 10)
    (root / "skills.json").write_text(registry_text([FRESH, *GLOBAL]))
    git(root, "commit", "-q", "-am", "a fresh skill")
    G = "skill:{}@global"
    write(root, [sig("vote", G.format("loved"), 1, 5, by=f"v{i}") for i in range(3)])
    write(root, [sig("usage", G.format("busy"), 1, d) for d in (1, 3, 20, 40, 80)])
    write(
        root,
        [sig("vote", G.format("fallen"), 1, 60, by=f"f{i}") for i in range(4)]
        + [sig("vote", G.format("fallen"), -1, 2, by=f"f{i}") for i in range(4)],
    )
    write(
        root,
        [
            sig("vote", G.format("rusty"), 1, 400, by="old"),
            sig("usage", G.format("rusty"), 1, 300, by="old"),
            sig("usage", G.format("unused"), 1, 120, by="old"),
        ],
    )
    return root


def decisions(root, window=90.0):
    ws = open_workspace(root)
    return {d.ref: d for d in plan_sweep(ws, load_weights(root), NOW, window)}


def test_sweep_selects_exactly_the_low_signal_skills(root):
    found = decisions(root)
    chosen = sorted(ref for ref, d in found.items() if d.deprecate)
    assert chosen == [
        "skill:ext@external/anthropic",
        "skill:lint@groups/acme",
        "skill:rusty@global",
        "skill:unused@global",
    ]
    assert "declared less than 90 days ago" in found["skill:fresh@global"].reason
    assert found["skill:fallen@global"].deprecate is False
    assert "quality reached" in found["skill:fallen@global"].reason
    # high quality, enough usage, not active: never even candidates
    for name in ("loved", "busy", "retired", "sketch"):
        assert f"skill:{name}@global" not in found
    unused = found["skill:unused@global"]
    # its one use, 120 days ago, is outside the window but still lifts the score a little
    assert unused.reason.startswith("quality stayed under 0.25 for 90 days (peak 0.23")
    assert unused.reason.endswith("; 0 use(s) in 90 days (minimum 3)")
    assert unused.peak_quality > unused.quality_now > found["skill:lint@groups/acme"].quality_now
    assert unused.declared_since == pytest.approx(NOW - 200 * DAY, abs=1)


def test_a_shorter_window_lets_the_fresh_skill_go(root):
    assert decisions(root, window=5)["skill:fresh@global"].deprecate is True


def run(root, *args):
    return CliRunner().invoke(exobrain_main, ["sweep", *args, "--repo", str(root)])


def test_dry_run_changes_nothing_then_the_sweep_writes_lifecycle_only(root):
    before = {p: (root / p).read_text() for p in ("skills.json", "groups/acme/skills.json")}
    dry = run(root, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would deprecate skill:unused@global: quality stayed under 0.25" in dry.output
    assert "would deprecate 4 skill(s)" in dry.output
    assert {p: (root / p).read_text() for p in before} == before

    done = run(root)
    assert done.exit_code == 0, done.output
    assert "deprecated 4 skill(s) (skills.json, groups/acme/skills.json)" in done.output
    entries = {e["name"]: e for e in json.loads((root / "skills.json").read_text())["skills"]}
    assert {n: e.get("lifecycle", "active") for n, e in entries.items()} == {
        "fresh": "active",
        "unused": "deprecated",
        "loved": "active",
        "busy": "active",
        "fallen": "active",
        "rusty": "deprecated",
        "retired": "deprecated",
        "sketch": "draft",
        "ext": "deprecated",
    }
    # only the deprecated lines changed, each by its lifecycle
    old_lines = before["skills.json"].splitlines()
    new_lines = (root / "skills.json").read_text().splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=False) if a != b]
    assert len(changed) == 3 and len(old_lines) == len(new_lines)
    assert all(json.loads(b.strip().rstrip(","))["lifecycle"] == "deprecated" for _a, b in changed)
    acme = json.loads((root / "groups/acme/skills.json").read_text())["skills"]
    assert acme == [{"name": "lint", "owner": "bo", "tier": "optional", "lifecycle": "deprecated"}]

    again = run(root, "--json")
    assert json.loads(again.output)["registries_changed"] == []


def test_sweep_json_lists_every_decision(root):
    data = json.loads(run(root, "--dry-run", "--json", "--window", "90").output)
    assert data["dry_run"] is True and data["window_days"] == 90
    by_skill = {d["skill"]: d for d in data["decisions"]}
    assert by_skill["skill:unused@global"]["deprecate"] is True
    assert by_skill["skill:fresh@global"]["deprecate"] is False
    assert by_skill["skill:unused@global"]["declared_since"].endswith("Z")


def test_a_skill_archived_after_the_plan_is_left_archived(root):
    from exobrain.signals.sweep import apply_sweep

    plan = [d for d in decisions(root).values() if d.deprecate]
    registry = json.loads((root / "skills.json").read_text())
    for entry in registry["skills"]:
        if entry["name"] == "unused":
            entry["lifecycle"] = "archived"
    (root / "skills.json").write_text(registry_text(registry["skills"]))
    apply_sweep(root, plan)
    lifecycles = {
        e["name"]: e.get("lifecycle")
        for e in json.loads((root / "skills.json").read_text())["skills"]
    }
    assert lifecycles["unused"] == "archived" and lifecycles["rusty"] == "deprecated"


def test_the_repository_schedules_the_sweep():
    from exobrain.gate.crons import check_crons, load_crons

    root = ROOT
    crons = load_crons(root)
    assert any(job.command == "exobrain sweep" for job in crons.jobs)
    assert check_crons(json.loads((root / "crons.json").read_text())) == []


def test_a_one_line_registry_gives_each_declaration_its_own_age(tmp_path, monkeypatch):
    """Issue 17: in a compact skills.json every declaration shares one line, so git blame
    gives no time per entry; the age comes from the committed versions, parsed."""
    root = tmp_path / "compact"
    old = {"name": "old", "owner": "al", "tier": "optional"}
    young = {"name": "young", "owner": "al", "tier": "optional"}
    tree = {f"skills/{n}/SKILL.md": skill_md(n) for n in ("old", "young", "later")}
    build_tree(root, {**tree, "skills.json": json.dumps({"skills": [old]})})
    set_git_date(monkeypatch, 200)
    init_repo(root)
    set_git_date(monkeypatch, 150)  # reformatted onto one line with a second entry
    (root / "skills.json").write_text(json.dumps({"skills": [old, young]}))
    git(root, "commit", "-q", "-am", "young")
    set_git_date(monkeypatch, 30)  # the line changes again: a third entry joins it
    later = {"name": "later", "owner": "al", "tier": "optional"}
    (root / "skills.json").write_text(json.dumps({"skills": [old, young, later]}))
    git(root, "commit", "-q", "-am", "later")
    assert len((root / "skills.json").read_text().splitlines()) == 1
    found = decisions(root)
    assert found["skill:old@global"].declared_since == pytest.approx(NOW - 200 * DAY, abs=1)
    assert found["skill:young@global"].declared_since == pytest.approx(NOW - 150 * DAY, abs=1)
    assert found["skill:old@global"].deprecate and found["skill:young@global"].deprecate
    assert "declared less than 90 days ago (changed" in found["skill:later@global"].reason
    # an entry edited on disk and not committed yet has no age: kept, and said so
    edited = {**young, "notes": "being reworked"}
    (root / "skills.json").write_text(json.dumps({"skills": [old, edited, later]}))
    found = decisions(root)
    assert found["skill:young@global"].declared_since is None
    assert "not committed yet" in found["skill:young@global"].reason
    assert found["skill:old@global"].deprecate
