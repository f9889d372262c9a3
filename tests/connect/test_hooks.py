"""Git hooks (relink after pull/rebase, validate before push) and scope hooks."""

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.githooks import HOOK_MARK, hooks_dir, named_script
from exobrain.connect.trust import trust
from tests.support.helpers import build_tree, exobrain, git, skill_md

BIN = Path(sys.executable).parent


def sample(tmp_path, name="x"):
    return exobrain(
        tmp_path / name,
        registries={
            "global": [{"name": "common", "owner": "o", "tier": "always", "force": True}],
            "groups/acme": [{"name": "tidy", "owner": "acme", "tier": "always", "force": True}],
        },
        scopes=["groups/acme", "people/alice"],
        skills={"global/common": None, "groups/acme/tidy": None},
        connection={"connected_scopes": ["groups/acme", "people/alice"]},
    )


def run(root, *args):
    result = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def executable(path: Path, text: str, *, trusted: bool = True) -> Path:
    """A scope hook; ``trusted`` records its content as trusted on this (test) machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    if trusted:
        trust([path])
    return path


def test_hooks_name_the_scripts_of_this_environment(tmp_path):
    root = sample(tmp_path)
    run(root, "claude")
    run(root, "codex", "--user")
    hooks = root / ".git/hooks"
    for name, script in (
        ("post-merge", "connect-agent"),
        ("post-rewrite", "connect-agent"),
        ("pre-push", "skills-validate"),
    ):
        text = (hooks / name).read_text()
        assert HOOK_MARK in text and os.access(hooks / name, os.X_OK)
        assert named_script(text) == str(BIN / script)
        assert f"command -v {script}" in text  # the fallback on PATH
    merge = (hooks / "post-merge").read_text()
    assert '"$run" claude --relink --quiet --repo' in merge
    assert '"$run" codex --relink --quiet --user --repo' in merge
    assert '"$run" --repo "$top"' in (hooks / "pre-push").read_text()


def fake_script(folder: Path, name: str) -> Path:
    """A stand-in console script that records how it was called."""
    return executable(folder / name, f'#!/bin/sh\necho "{name} $*" >> "{folder}/calls"\n')


def run_hook(hook: Path, cwd: Path, path: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(hook), "0"], cwd=cwd, capture_output=True, text=True, env={**os.environ, "PATH": path}
    )


def test_a_hook_falls_back_to_path_then_says_what_to_do(tmp_path):
    root = sample(tmp_path)
    run(root, "claude")
    hook = root / ".git/hooks/post-merge"
    text = hook.read_text().replace(
        f"named={BIN}/connect-agent", "named=/gone/venv/bin/connect-agent"
    )
    hook.write_text(text)
    other = tmp_path / "new-venv-bin"
    fake_script(other, "connect-agent")
    system = "/usr/bin:/bin"
    done = run_hook(hook, root, f"{other}:{system}")
    assert done.returncode == 0 and done.stderr == ""
    assert (other / "calls").read_text() == f"connect-agent claude --relink --quiet --repo {root}\n"
    done = run_hook(hook, root, system)  # neither the named script nor one on PATH
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "exobrain post-merge hook: /gone/venv/bin/connect-agent is gone and connect-agent is not "
        "on PATH; fix: activate the environment where exobrain-skills is installed (or pip "
        "install it) and run connect-agent AGENT --relink"
    ]


def test_hooks_of_another_environment_that_still_runs_are_kept(tmp_path, monkeypatch):
    from exobrain.connect import githooks

    root = sample(tmp_path)
    run(root, "claude")
    installed = {h: (root / ".git/hooks" / h).read_text() for h in ("post-merge", "pre-push")}
    newer = tmp_path / "new-venv" / "bin"
    runner = githooks.Runner(
        str(fake_script(newer, "connect-agent")), str(fake_script(newer, "skills-validate"))
    )
    monkeypatch.setattr(githooks, "current_runner", lambda: runner)
    result = run(root, "claude", "--relink")  # the first environment still exists: kept
    changed = [line for line in result.output.splitlines() if not line.startswith("✓")]
    assert not any("hook" in line for line in changed), result.output
    assert {h: (root / ".git/hooks" / h).read_text() for h in installed} == installed
    text = installed["post-merge"].replace(f"named={BIN}/", f"named={tmp_path}/gone/")
    (root / ".git/hooks/post-merge").write_text(text)
    (root / ".git/hooks/post-rewrite").write_text(text.replace("post-merge", "post-rewrite"))
    result = run(root, "claude", "--relink")  # the first one is gone: this one takes over
    assert "~ updated       .git/hooks/post-merge" in result.output
    assert named_script((root / ".git/hooks/post-merge").read_text()) == runner.connect
    assert named_script((root / ".git/hooks/pre-push").read_text()) == runner.validate


def test_users_hook_is_chained_not_overwritten(tmp_path):
    root = sample(tmp_path)
    mine = '#!/bin/sh\necho mine >> "$(git rev-parse --show-toplevel)/../ran"\n'
    executable(root / ".git/hooks/post-merge", mine)
    result = run(root, "claude")
    assert "your hook kept as post-merge.local" in result.output
    assert (root / ".git/hooks/post-merge.local").read_text() == mine
    ours = (root / ".git/hooks/post-merge").read_text()
    run(root, "claude", "--relink")  # ours now: kept as is, the .local one untouched
    assert (root / ".git/hooks/post-merge").read_text() == ours
    assert (root / ".git/hooks/post-merge.local").read_text() == mine
    executable(root / ".git/hooks/pre-push", "#!/bin/sh\nexit 0\n")
    executable(root / ".git/hooks/pre-push.local", "#!/bin/sh\nexit 0\n")
    result = run(root, "claude", "--relink")
    assert (
        "! skipped       .git/hooks/pre-push: a hook of yours is here and pre-push.local "
        "is taken" in result.output
    )
    assert (root / ".git/hooks/pre-push").read_text() == "#!/bin/sh\nexit 0\n"


def test_git_pull_relinks_and_runs_the_users_hook(tmp_path):
    upstream = sample(tmp_path, "upstream")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    (clone / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["groups/acme"]}))
    executable(
        clone / ".git/hooks/post-merge",
        '#!/bin/sh\necho "mine $1" > "$(git rev-parse --show-toplevel)/../ran"\n',
    )
    assert run(clone, "claude").exit_code == 0
    assert not (clone / ".claude/skills/new").exists()
    build_tree(
        upstream,
        {
            "groups/acme/skills/new/SKILL.md": skill_md("new"),
            "groups/acme/skills.json": {
                "skills": [{"name": "new", "owner": "acme", "tier": "always", "force": True}]
            },
        },
    )
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "new skill, tidy dropped")
    done = subprocess.run(
        ["git", "pull", "-q", "--no-rebase"],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stderr
    assert os.readlink(clone / ".claude/skills/new") == "../../groups/acme/skills/new"
    assert not (clone / ".claude/skills/tidy").exists()
    assert (tmp_path / "ran").read_text() == "mine 0\n"  # the user's hook ran, with its argument


def test_pre_push_runs_skills_validate(tmp_path):
    upstream = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(upstream))
    root = sample(tmp_path)
    git(root, "remote", "add", "origin", str(upstream))
    run(root, "claude")
    push = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=root, capture_output=True, text=True
    )
    assert push.returncode == 0, push.stderr
    (root / "skills.json").write_text('{"skills": [{"name": "Bad Name"}]}')
    git(root, "commit", "-qam", "broken registry")
    push = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=root, capture_output=True, text=True
    )
    assert push.returncode != 0
    assert "skills.json" in push.stdout + push.stderr and "skills-validate failed" in push.stderr


def test_hooks_path_setting_is_respected(tmp_path):
    root = sample(tmp_path)
    elsewhere = tmp_path / "team-hooks"
    git(root, "config", "core.hooksPath", str(elsewhere))
    assert hooks_dir(root) == elsewhere
    run(root, "claude")
    assert (elsewhere / "post-merge").is_file() and not (root / ".git/hooks/post-merge").exists()
    git(root, "config", "core.hooksPath", ".githooks")  # inside the work tree: not ours to edit
    result = run(root, "claude", "--relink")
    assert "core.hooksPath points into the work tree" in result.output
    assert not (root / ".githooks").exists()


def test_scope_hooks_run_shallow_to_deep_with_arguments(tmp_path):
    root = sample(tmp_path)
    log = tmp_path / "log"
    for scope, name in (
        ("people/alice", "connect-agent"),
        ("groups/acme", "connect-agent"),
        ("groups/acme", "connect-agent.claude"),
        ("groups/acme", "connect-agent.codex"),
    ):
        executable(
            root / scope / "scripts" / name,
            f'#!/bin/sh\necho "{scope}/{name} $*" >> {log}\necho hello from {name}\n',
        )
    result = run(root, "claude")
    assert result.exit_code == 0, result.output
    target = root / ".claude/skills"
    assert log.read_text().splitlines() == [
        f"groups/acme/connect-agent claude {target} {root / 'groups/acme'}",
        f"groups/acme/connect-agent.claude claude {target} {root / 'groups/acme'}",
        f"people/alice/connect-agent claude {target} {root / 'people/alice'}",
    ]
    assert "✓ ran           groups/acme/scripts/connect-agent.claude" in result.output
    assert "    hello from connect-agent.claude" in result.output
    log.unlink()
    run(root, "claude", "--dry-run")
    assert not log.exists()


def test_failing_and_hanging_hooks_are_reported_and_connect_continues(tmp_path):
    root = sample(tmp_path)
    executable(root / "groups/acme/scripts/connect-agent", "#!/bin/sh\necho oops\nexit 3\n")
    executable(
        root / "people/alice/scripts/connect-agent",
        f"#!/bin/sh\nsleep 30 &\necho started\nsleep 30\necho never > {tmp_path}/x\n",
    )
    build_tree(root, {"people/alice/scripts/connect-agent.claude": "#!/bin/sh\n"})  # not +x
    trust([root / "people/alice/scripts/connect-agent.claude"])
    result = run(root, "claude", "--hook-timeout", "0.5", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 1
    hooks = {h["path"]: h for h in data["scope_hooks"]}
    assert hooks["groups/acme/scripts/connect-agent"]["exit_code"] == 3
    assert hooks["groups/acme/scripts/connect-agent"]["output"] == "oops"
    hanging = hooks["people/alice/scripts/connect-agent"]
    assert hanging["timed_out"] and hanging["exit_code"] is None and hanging["seconds"] < 5
    assert hanging["output"] == "started"
    assert "not executable" in hooks["people/alice/scripts/connect-agent.claude"]["error"]
    assert (root / ".claude/skills/tidy").is_symlink()  # the rest was done
    result = run(root, "claude", "--hook-timeout", "0.5")
    assert "! hook failed   groups/acme/scripts/connect-agent: exited 3" in result.output
    assert "people/alice/scripts/connect-agent: timed out after" in result.output


def test_a_folder_named_like_a_hook_is_left_alone(tmp_path):
    root = sample(tmp_path)
    (root / ".git/hooks/post-merge").mkdir()
    result = run(root, "claude")
    assert "! skipped       .git/hooks/post-merge: a folder has this name" in result.output
    assert (root / ".git/hooks/post-merge").is_dir()
    assert (root / ".git/hooks/post-rewrite").is_file()
