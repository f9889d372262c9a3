import json

from click.testing import CliRunner

from exobrain.cli.status import main as status
from exobrain.model import Identity, Reason
from exobrain.registry.entries import make_entry
from exobrain.resolve import resolve
from exobrain.supersession import redirect
from exobrain.util.graphs import find_cycles
from exobrain.workspace import open_workspace
from tests.support.helpers import exobrain


def supersedes(*refs):
    return "links:\n  supersedes:\n" + "".join(f"    - {r}\n" for r in refs)


def new_skill(name, *refs, lifecycle_note=""):
    return f"---\nname: {name}\ndescription: Use {name}.\n{supersedes(*refs)}---\nbody\n"


def test_successor_takes_the_higher_tier_and_old_goes_off(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "old", "owner": "o", "tier": "always", "force": True},
                {"name": "new", "owner": "o", "tier": "optional"},
            ]
        },
        skills={"global/old": None, "global/new": new_skill("new", "skill:old")},
    )
    rows = {r.name: r for r in open_workspace(root).resolve("claude")}
    assert (rows["new"].tier, rows["old"].tier) == ("always", "off")
    assert rows["old"].reason is Reason.SUPERSEDED
    assert rows["old"].note == "superseded: old → new"
    out = CliRunner().invoke(status, ["--repo", str(root)]).stdout
    assert "old → new" in out


def test_chain_is_followed_and_archived_successor_is_skipped(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "a", "owner": "o", "tier": "optional", "force": True},
                {"name": "b", "owner": "o", "tier": "optional", "force": True},
                {
                    "name": "c",
                    "owner": "o",
                    "tier": "unlisted",
                    "force": True,
                    "lifecycle": "archived",
                },
            ]
        },
        skills={
            "global/a": None,
            "global/b": new_skill("b", "skill:a@global"),
            "global/c": new_skill("c", "skill:b"),
        },
    )
    rows = {r.name: r for r in open_workspace(root).resolve()}
    assert rows["b"].tier == "optional" and rows["a"].tier == "off"
    assert rows["c"].tier == "off" and rows["c"].note == "archived"


def test_cycle_is_found_and_nothing_redirects(tmp_path):
    a, b, c = (Identity("global", n) for n in "abc")
    edges = {a: [b], b: [a], c: [a]}
    assert find_cycles(edges) == [[a, b]]
    rows = resolve(
        [
            make_entry({"name": n, "owner": "o", "tier": "always", "force": True}, "global", i)
            for i, n in enumerate("abc")
        ],
        frozenset(),
    )
    result = {r.name: r.tier for r in redirect(rows, edges)}
    assert result == {"a": "always", "b": "always", "c": "always"}


def test_successor_outside_the_chain_does_not_redirect(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["groups/g"],
        registries={
            "global": [{"name": "old", "owner": "o", "tier": "always", "force": True}],
            "groups/g": [{"name": "new", "owner": "o", "tier": "always", "force": True}],
        },
        skills={"global/old": None, "groups/g/new": new_skill("new", "skill:old@global")},
    )
    assert {r.name: r.tier for r in open_workspace(root).resolve()} == {"old": "always"}
    (root / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["groups/g"]}))
    assert {r.name: r.tier for r in open_workspace(root).resolve()} == {
        "old": "off",
        "new": "always",
    }


def test_connect_agent_replaces_old_link_with_new_after_supersede(tmp_path):
    from exobrain.cli.connect import main as connect
    from exobrain.cli.umbrella import main as umbrella

    root = exobrain(
        tmp_path / "x",
        scopes=["people/al"],
        registries={
            "global": [
                {"name": "old", "owner": "o", "tier": "always", "force": True},
                {"name": "new", "owner": "o", "tier": "optional"},
            ]
        },
        skills={"global/old": None, "global/new": None},
    )
    runner = CliRunner()
    first = runner.invoke(connect, ["claude", "--person", "al", "--repo", str(root)])
    assert first.exit_code == 0 and "+ linked        old" in first.stdout
    assert runner.invoke(umbrella, ["supersede", "new", "old", "--repo", str(root)]).exit_code == 0
    second = runner.invoke(connect, ["claude", "--relink", "--repo", str(root)])
    assert second.exit_code == 0
    assert "+ linked        new" in second.stdout and "- removed       old" in second.stdout
    links = sorted(p.name for p in (root / ".claude/skills").iterdir())
    assert links == ["new"]
