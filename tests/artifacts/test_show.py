"""Issue 17, item 8: exobrain show shows everything known — every frontmatter field, the lock
state, quality and its components, declarations, overrides, tier for me, links both ways."""

import json

from click.testing import CliRunner

from exobrain.cli.umbrella import main
from tests.support.helpers import build_tree, exobrain, skill_md


def run(root, *args):
    result = CliRunner().invoke(main, [*args, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return result.output


def repo(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "tidy", "owner": "al", "tier": "optional", "force": True},
                {"name": "neat", "owner": "al", "tier": "optional"},
                {"name": "loose", "owner": "al", "tier": "optional"},
                {"name": "draft", "owner": "al", "tier": "optional"},
            ],
            "people/al": [{"name": "tidy", "from": "global", "tier": "always"}],
        },
        scopes=["people/al"],
        skills={
            "global/tidy": skill_md("tidy", version="1.2.0", tags="[cleanup, style]"),
            "global/neat": skill_md(
                "neat", version="1.0.0", links="{supersedes: [skill:tidy@global]}"
            ),
            "global/loose": skill_md("loose", version="0.3.0"),
            "global/draft": skill_md("draft"),
        },
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )
    run(root, "lock")
    build_tree(root, {"skills/neat/more.md": "edited after locking\n"})  # neat goes stale
    lock = json.loads((root / "skills.lock.json").read_text())
    del lock["skills"]["loose"]  # loose was never locked
    (root / "skills.lock.json").write_text(json.dumps(lock))
    run(root, "signal", "vote", "skill:tidy@global", "up")
    return root


def test_show_prints_everything_known(tmp_path):
    root = repo(tmp_path)
    out = run(root, "show", "skill:tidy@global")
    assert "  version:     1.2.0" in out
    assert "  lock:        fresh" in out
    assert "  for you:     off (superseded: tidy → neat), decided by people/al" in out
    assert "  quality:     0." in out and "votes " in out and "calibration " in out
    assert "  declared:    skills.json #0 tier=optional owner=al force=True" in out
    assert "  override:    people/al/skills.json #0 tier=always from=global" in out
    assert "  quality:     0.287 (votes 0.21, ranks 0.50, calibration 0.50" in out
    assert "  superseded by: skill:neat@global" in out
    assert '    tags: ["cleanup", "style"]' in out  # every frontmatter field
    assert "    description: Use tidy when the user asks for tidy." in out


def test_lock_states(tmp_path):
    root = repo(tmp_path)

    def lock_of(name):
        return json.loads(run(root, "show", f"skill:{name}@global", "--json"))["lock"]

    assert lock_of("tidy")["state"] == "fresh" and lock_of("tidy")["locked"] == "1.2.0"
    stale = lock_of("neat")
    assert (
        stale["state"] == "stale"
        and "content changed but version is still 1.0.0" in (stale["detail"])
    )
    assert lock_of("loose") == {"state": "missing", "detail": "not locked: run exobrain lock"}
    assert lock_of("draft") == {"state": "unversioned", "detail": "no version"}
    assert "lock:        stale (content changed" in run(root, "show", "skill:neat@global")


def test_show_json_has_quality_components_and_links_both_ways(tmp_path):
    root = repo(tmp_path)
    facts = json.loads(run(root, "show", "skill:tidy@global", "--json"))
    assert set(facts["quality"]["components"]) == {"votes", "ranks", "calibration", "usage", "fund"}
    assert facts["quality"]["components"]["votes"] > 0
    assert facts["frontmatter"]["tags"] == ["cleanup", "style"]
    assert facts["linked_from"] == {"supersedes": ["skill:neat@global"]}
    neat = json.loads(run(root, "show", "skill:neat@global", "--json"))
    assert neat["links"] == {"supersedes": ["skill:tidy@global"]}
    assert facts["resolved"]["tier"] == "off" and facts["resolved"]["decided_by"] == "people/al"
    assert [o["registry"] for o in facts["overrides"]] == ["people/al/skills.json"]
