"""exobrain adopt case by case: forks of edited installs, copies when a commit cannot be
checked, the plan before anything is written, user folders, and records that are bad input."""

from __future__ import annotations

import json
import os
import shutil

from click.testing import CliRunner

from exobrain.cli.umbrella import main as umbrella
from exobrain.interop.adopt_records import installed_hash
from exobrain.interop.formats import skills_lock
from exobrain.util.fileio import load_json
from tests.interop.adopt_machine import (
    FIXTURES,
    VERCEL,
    brain,
    install_project,
    install_user,
    marketplace,
    snapshot,
    upstream,
)
from tests.support.helpers import build_tree, git, skill_md


def adopt(root, *args):
    result = CliRunner().invoke(umbrella, ["adopt", "--repo", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def adopted(root, *args):
    code, out, err = adopt(root, "--into", "people/alice", "--json", *args)
    assert err == "", err
    return code, {s["name"]: s for s in json.loads(out)["skills"]}


def registry(root):
    path = root / "people/alice/skills.json"
    return {e["name"]: e for e in load_json(path)["skills"]}


def test_the_real_records_read_back_and_their_hashes_are_the_folders(tmp_path):
    entries, problems = skills_lock.read_lock(load_json(VERCEL / "skills-lock.json"))
    assert problems == [] and sorted(entries) == ["notes-helper", "pdf-tools", "release-notes"]
    assert (entries["pdf-tools"].source, entries["pdf-tools"].ref) == ("acme/skills", "v1.0")
    for name in ("pdf-tools", "release-notes"):
        folder = FIXTURES / "upstream-skills" / name
        assert installed_hash(folder) == entries[name].computed_hash
    local = FIXTURES / "local-skill" / "notes-helper"
    assert installed_hash(local) == entries["notes-helper"].computed_hash
    users, problems = skills_lock.read_lock(load_json(VERCEL / "user-skill-lock.json"), user=True)
    assert problems == [] and users["pdf-tools"].source_type == "git"
    # what the writer makes is what the tool wrote, byte for byte
    text = (VERCEL / "skills-lock.json").read_text(encoding="utf-8")
    assert skills_lock.render(entries.values()) == text


def test_an_install_edited_since_is_kept_as_a_fork(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    placed = install_project(root, up, tmp_path)
    (placed["pdf-tools"] / "split.sh").write_text("echo split --pages\n")
    gh_skill = placed["commit-style"] / "SKILL.md"
    gh_skill.write_text(gh_skill.read_text().replace("72 characters", "50 characters"))
    code, items = adopted(root, "--yes")
    assert code == 0
    assert items["pdf-tools"]["action"] == "fork"
    assert items["commit-style"]["action"] == "fork"
    assert items["release-notes"]["action"] == "external"
    entries = registry(root)
    assert "source" not in entries["pdf-tools"] and "source" not in entries["commit-style"]
    copy = root / "people/alice/skills/pdf-tools/split.sh"
    assert copy.read_text() == "echo split --pages\n"  # the edits are what is kept
    lock = load_json(root / "people/alice/skills.lock.json")["skills"]
    record = lock["pdf-tools"]["upstream"]
    assert (record["kind"], record["url"], record["path"], record["ref"]) == (
        "git",
        "https://github.com/acme/skills",
        "skills/pdf-tools",
        "v1.0",
    )
    tagged = git(up.work, "rev-parse", "v1.0^{commit}").strip()
    assert record["commit"] == tagged  # vercel's hash says what was installed: that commit
    assert record["adopted"]["forked"] is True
    assert lock["commit-style"]["upstream"]["commit"] == tagged


def test_a_commit_that_cannot_be_checked_gives_a_copy_and_says_why(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    up.commit(
        {
            "skills/release-notes/SKILL.md": "---\nname: release-notes\n"
            "description: Draft release notes, now grouped by label.\n---\nGroup.\n"
        }
    )
    code, items = adopted(root, "--dry-run")
    assert code == 0
    assert items["release-notes"]["action"] == "copy"
    assert "no longer holds what was installed" in " ".join(items["release-notes"]["notes"])
    assert items["pdf-tools"]["action"] == "external"  # its tag did not move
    shutil.rmtree(up.bare)
    code, items = adopted(root, "--dry-run")
    assert code == 0
    for name in ("pdf-tools", "commit-style"):
        assert items[name]["action"] == "copy"
        assert "cannot be checked from here" in " ".join(items[name]["notes"])
    assert not (root / "people/alice/skills.lock.json").exists()


def test_local_repositories_need_the_fetchers_setting(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    settings = root / ".exobrain.json"
    data = load_json(settings)
    data["external_skills"] = {"allow_local": False}
    settings.write_text(json.dumps(data))
    lock = root / "skills-lock.json"
    text = lock.read_text().replace("ssh://git.example.test/acme/skills.git", up.url)
    lock.write_text(text)
    _, items = adopted(root, "--dry-run")
    assert items["release-notes"]["action"] == "copy"
    assert "local sources are off" in " ".join(items["release-notes"]["notes"])


def test_the_plan_comes_first_and_nothing_is_written_without_yes(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    before = snapshot(root / "people")
    code, out, _ = adopt(root, "--into", "people/alice")
    assert code == 0
    assert "external  pdf-tools  .claude/skills/pdf-tools (claude)" in out
    assert "pass --yes to apply" in out
    code, out, _ = adopt(root, "--into", "people/alice", "--dry-run", "--yes")
    assert "dry run: nothing was written" in out
    assert snapshot(root / "people") == before


def test_agents_narrow_the_search_and_user_folders_come_with_user(tmp_path, isolated_home):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    install_user(isolated_home)
    _, items = adopted(root, "--dry-run", "--agent", "copilot")
    assert sorted(items) == ["commit-style"]
    shutil.rmtree(root / ".claude")
    shutil.rmtree(root / ".agents")
    _, items = adopted(root, "--dry-run", "--user", "--agent", "claude", "--agent", "agents")
    assert items["release-notes"]["installed"] == "~/.claude/skills/release-notes"
    assert items["release-notes"]["record"]["record"] == "~/.agents/.skill-lock.json"
    assert items["release-notes"]["action"] == "external"
    assert items["pdf-tools"]["installed"] == "~/.agents/skills/pdf-tools"
    assert items["pdf-tools"]["action"] == "external"


def test_bad_records_are_named_entry_by_entry_and_the_rest_comes_in(tmp_path, isolated_home):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    placed = install_project(root, up, tmp_path)
    lock = load_json(root / "skills-lock.json")
    lock["skills"]["pdf-tools"]["skillPath"] = "../../etc/SKILL.md"
    lock["skills"]["release-notes"] = ["not", "an", "object"]
    (root / "skills-lock.json").write_text(json.dumps(lock))
    gh_skill = placed["commit-style"] / "SKILL.md"
    gh_skill.write_text(gh_skill.read_text().replace("ff08892312", "zz08892312"))
    install_user(isolated_home)
    (isolated_home / ".agents/.skill-lock.json").write_text('{"version": 3, "skills": {')
    code, out, err = adopt(root, "--into", "people/alice", "--user", "--yes")
    assert code == 1 and "Traceback" not in out + err
    assert (
        "skip      pdf-tools  .claude/skills/pdf-tools (claude): skills-lock.json: "
        "skills.pdf-tools: skillPath must be a relative path to a SKILL.md without '..'" in out
    )
    assert "skills.release-notes: the entry must be an object" in out
    assert ".github/skills/commit-style/SKILL.md: metadata.github-tree-sha must be" in out
    assert "~/.agents/.skill-lock.json:1:" in out and "invalid JSON" in out
    assert "fix or remove that record, then adopt again" in out
    assert list(registry(root)) == ["notes-helper"]  # the one with a good record


def test_text_from_records_never_reaches_the_terminal_raw(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    lock = load_json(root / "skills-lock.json")
    lock["skills"]["notes-helper"]["source"] = "/tmp/\x1b]0;owned\x07x"
    (root / "skills-lock.json").write_text(json.dumps(lock))
    _, out, _ = adopt(root, "--into", "people/alice", "--dry-run")
    assert "\x1b" not in out and "\x07" not in out
    assert "source must be printable text" in out


def test_own_links_and_installs_are_not_someone_elses(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    assert adopt(root, "--into", "people/alice", "--yes")[0] == 0
    runner = CliRunner()
    from exobrain.cli.connect import main as connect

    assert runner.invoke(connect, ["claude", "--repo", str(root)]).exit_code == 0
    assert os.path.islink(root / ".claude/skills/notes-helper.people__alice")
    _, items = adopted(root, "--dry-run", "--agent", "claude")
    assert sorted(items) == ["notes-helper", "pdf-tools"]  # theirs, adopted before
    assert all(i["action"] == "adopted" and i["problem"] is None for i in items.values())
    # a skill of that name declared here by other means is a name taken, not an adoption
    entries = load_json(root / "people/alice/skills.json")
    for entry in entries["skills"]:
        if entry["name"] == "pdf-tools":
            entry["source"]["path"] = "skills/other"
    (root / "people/alice/skills.json").write_text(json.dumps(entries))
    code, items = adopted(root, "--dry-run", "--agent", "claude")
    assert code == 1 and "already declared in people/alice" in items["pdf-tools"]["problem"]


def test_claude_code_plugin_skills_come_in_pinned_to_the_installed_commit(tmp_path, isolated_home):
    root = brain(tmp_path)
    tools, installed = marketplace(tmp_path, isolated_home)
    code, items = adopted(root, "--user", "--agent", "claude", "--yes")
    assert code == 0, items
    item = items["changelog"]
    assert item["action"] == "external" and item["commit"] == tools.head()
    assert item["record"]["tool"] == "Claude Code plugins"
    entry = registry(root)["changelog"]
    assert entry["source"] == {
        "repo": "https://github.com/acme/tools",
        "path": "plugins/docs-kit/skills/changelog",
        "ref": tools.head(),
    }
    # an edit since the install: a fork, and the marketplace's later commits change nothing
    (root / "people/alice/skills.json").write_text('{"skills": []}')
    (installed / "SKILL.md").write_text((installed / "SKILL.md").read_text() + "Mine.\n")
    tools.commit({"README.md": "# tools\n"})
    _, items = adopted(root, "--user", "--agent", "claude", "--dry-run")
    assert items["changelog"]["action"] == "fork"


def test_a_claude_plugin_record_pointing_outside_its_folder_is_refused(tmp_path, isolated_home):
    root = brain(tmp_path)
    marketplace(tmp_path, isolated_home)
    record = isolated_home / ".claude/plugins/installed_plugins.json"
    data = load_json(record)
    data["plugins"]["docs-kit@acme-tools"][0]["installPath"] = str(tmp_path)
    record.write_text(json.dumps(data))
    code, out, err = adopt(root, "--into", "people/alice", "--user", "--agent", "claude")
    assert code == 1 and "Traceback" not in out + err
    assert "plugins.docs-kit@acme-tools" in out and "lies outside" in out


def test_on_a_terminal_adopt_asks_first(tmp_path, monkeypatch):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    monkeypatch.setattr("exobrain.cli.adopt.on_terminal", lambda: True)
    runner = CliRunner()
    args = ["adopt", "--repo", str(root), "--into", "people/alice"]
    answered = runner.invoke(umbrella, args, input="n\n")
    assert "adopt 4 skill(s) into people/alice? [y/N]" in answered.output
    assert "nothing was written" in answered.output and registry(root) == {}
    answered = runner.invoke(umbrella, args, input="y\n")
    assert answered.exit_code == 0 and "adopted 4 skill(s)" in answered.output
    assert sorted(registry(root)) == ["commit-style", "notes-helper", "pdf-tools", "release-notes"]


def test_one_skill_installed_twice_comes_in_once_and_a_hand_made_one_is_left(
    tmp_path, isolated_home
):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    install_user(isolated_home)
    build_tree(root, {".claude/skills/my-own/SKILL.md": skill_md("my-own")})
    # the real records drifted apart: the project took release-notes over ssh, the user lock
    # from GitHub; for pdf-tools, make the user lock name the project's source too
    user_lock = isolated_home / ".agents/.skill-lock.json"
    data = load_json(user_lock)
    data["skills"]["pdf-tools"].update(sourceType="github", source="acme/skills")
    user_lock.write_text(json.dumps(data))
    code, out, _ = adopt(root, "--into", "people/alice", "--user", "--dry-run")
    assert code == 1, out
    assert (
        "adopted   pdf-tools  ~/.agents/skills/pdf-tools (agents): the same skill as "
        ".claude/skills/pdf-tools, nothing to do" in out
    )
    assert (
        "skip      release-notes  .agents/skills/release-notes (codex, agents): "
        "~/.claude/skills/release-notes is another skill named 'release-notes'" in out
    )
    assert "leave     my-own  .claude/skills/my-own (claude): no installer's record" in out
    assert "exobrain import .claude/skills/my-own brings it in as a copy" in out


def test_a_link_the_tool_made_between_agent_folders_is_one_skill(tmp_path):
    up = upstream(tmp_path)
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    os.symlink("../../.agents/skills/release-notes", root / ".claude/skills/release-notes")
    _, items = adopted(root, "--dry-run")
    assert items["release-notes"]["agents"] == ["claude", "codex", "agents"]
    assert items["release-notes"]["installed"] == ".claude/skills/release-notes"
    assert items["release-notes"]["action"] == "external"
