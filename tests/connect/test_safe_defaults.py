"""Issue 17, item 6: safe defaults — connect-agent outside an exobrain, a removed host scope,
connect-agent's counters, one line per failed external skill."""

import json
import os

from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from tests.support.helpers import build_tree, exobrain, git, skill_md


def run(root, *args):
    result = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    return result.exit_code, result.output


def test_outside_an_exobrain_nothing_is_written_unless_forced(tmp_path):
    project = tmp_path / "some-project"
    build_tree(project, {"README.md": "not an exobrain\n", "AGENTS.md": "# codex notes\n"})
    git(project, "init", "-q", "-b", "main")
    before = sorted(p.name for p in project.iterdir())
    hooks = sorted(p.name for p in (project / ".git/hooks").iterdir())
    code, out = run(project, "claude", "--guest")
    assert code == 2
    assert "is not an exobrain (no skills.json at its root): nothing was changed" in out
    assert "--force" in out
    assert sorted(p.name for p in project.iterdir()) == before
    assert sorted(p.name for p in (project / ".git/hooks").iterdir()) == hooks
    code, out = run(project, "claude", "--guest", "--force")
    assert code == 0, out
    assert (project / ".exobrain.json").is_file() and (project / ".git/hooks/post-merge").is_file()
    assert run(project, "claude", "--relink")[0] == 0  # connected once: no --force needed again


def test_a_removed_host_folder_keeps_the_person_scope_connected(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={"people/dana": [{"name": "mine", "owner": "dana", "tier": "always"}]},
        scopes=["people/dana", "people/dana/hosts/lap1"],
        skills={"people/dana/mine": None},
    )
    assert run(root, "claude", "--person", "dana", "--host", "lap1")[0] == 0
    assert (root / ".claude/skills/mine").is_symlink()
    build_tree(root, {"people/dana/hosts/lap1/skills/box/SKILL.md": skill_md("box")})
    (root / "people/dana/hosts/lap1/skills.json").write_text(
        json.dumps({"skills": [{"name": "box", "owner": "dana", "tier": "always"}]})
    )
    assert run(root, "claude", "--relink")[0] == 0
    assert (root / ".claude/skills/box").is_symlink()
    (root / "people/dana/hosts/lap1/AGENTS.md").unlink()
    code, out = run(root, "claude", "--relink")
    assert code == 0, out  # a warning, and the rest of the chain is linked as before
    assert "connected scope 'people/dana/hosts/lap1' does not exist" in out
    assert "still connected: people/dana" in out
    assert (root / ".claude/skills/mine").is_symlink()  # the person's skill stays
    assert not (root / ".claude/skills/box").exists()  # the host's goes
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["connected_scopes"] == ["people/dana/hosts/lap1"]  # back when it is back


def test_the_summary_counts_every_skipped_line(tmp_path):
    root = exobrain(tmp_path / "x", scopes=["people/dana"])
    mine = "#!/bin/sh\nexit 0\n"
    for name in ("pre-push", "pre-push.local"):
        (root / ".git/hooks" / name).write_text(mine)
        os.chmod(root / ".git/hooks" / name, 0o755)
    code, out = run(root, "claude", "--person", "dana")
    assert code == 0, out
    skipped = [line for line in out.splitlines() if line.startswith("! skipped")]
    assert skipped and skipped[0].startswith("! skipped       .git/hooks/pre-push")
    assert f", {len(skipped)} skipped, " in out.splitlines()[-1]


def test_an_unreachable_external_skill_is_one_line_per_agent(tmp_path):
    gone = {"repo": (tmp_path / "nowhere.git").as_uri(), "path": "skills/gone", "ref": "main"}
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "gone", "owner": "x", "tier": "always", "force": True, "source": gone}
            ]
        },
        skills={},
        connection={"connected_scopes": [], "external_skills": {"allow_local": True}},
    )
    build_tree(root, {"skills/local/SKILL.md": skill_md("local")})
    for agent in ("claude", "codex"):
        code, out = run(root, agent)
        assert code == 0, out
        assert [line for line in out.splitlines() if "gone" in line] == [
            "✗ external      gone: failed: cannot reach "
            + out.split("✗ external      gone: failed: cannot reach ", 1)[1].splitlines()[0]
        ]
