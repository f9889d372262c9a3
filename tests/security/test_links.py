"""Committed symlinks must not redirect writes out of the repository (issue 15, finding 2): a
lock file, a ledger, the search cache, an agent folder, a registry, a lock or a scope's
skills folder that is a committed link leading out is refused with the link and its target
named, and nothing is written wherever it points."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.support.helpers import build_tree, skill_md
from tests.support.sandbox import skill_with


def committed_link(box, rel, target):
    path = box.repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)
    box.commit()
    return path


def test_registry_lock_file_link_is_refused_by_promote(box):
    target = box.outside / "created-by-promote"
    committed_link(box, "people/alice/skills.json.flock", target)
    result = box.run("skills-promote", "tidy", "--from", "global", "--to", "off")
    assert result.code == 2
    assert f"skills.json.flock: is a symbolic link (→ {target})" in result.err
    assert "never followed, nothing was written" in result.err
    assert not target.exists()
    assert "off" not in (box.repo / "people/alice/skills.json").read_text()


def test_ledger_linked_to_bashrc_is_refused_by_signal(box):
    committed_link(box, "signals/alice/laptop.jsonl", box.bashrc)
    result = box.run("exobrain", "signal", "vote", "skill:tidy", "up")
    assert result.code == 2
    assert f"signals/alice/laptop.jsonl: is a symbolic link (→ {box.bashrc})" in result.err


def test_ledger_linked_to_bashrc_is_refused_by_the_usage_hook(box):
    committed_link(box, "signals/alice/laptop.jsonl", box.bashrc)
    payload = {"tool_name": "Skill", "tool_input": {"skill": "tidy"}, "cwd": str(box.repo)}
    result = box.run(
        sys.executable,
        "-m",
        "exobrain.signals.usage_hook",
        "--repo",
        str(box.repo),
        stdin=json.dumps(payload),
    )
    assert result.code == 0  # the hook never gets in the agent's way …
    log = box.hook_log.read_text()
    assert f"is a symbolic link (→ {box.bashrc})" in log  # … and logs why it wrote nothing


def test_ledger_folder_linked_outside_is_refused(box):
    committed_link(box, "signals/alice", box.outside / "folder")
    result = box.run("exobrain", "signal", "usage", "skill:tidy")
    assert result.code == 2
    assert (
        f"signals/alice is a symbolic link to {box.outside / 'folder'}, leading outside"
        in result.err
    )


def test_search_cache_link_is_refused(box):
    committed_link(box, ".exobrain-cache", box.outside / "folder")
    result = box.run("exobrain", "search", "tidy")
    assert result.code == 2
    assert (
        f".exobrain-cache is a symbolic link to {box.outside / 'folder'}, not a real" in result.err
    )
    assert "it must be a real folder inside" in result.err


def test_agent_folder_link_is_refused_by_connect_agent(box):
    committed_link(box, ".claude", box.outside / "folder")
    result = box.run("connect-agent", "claude", "--person", "alice")
    assert result.code == 2
    assert (
        f".claude is a symbolic link to {box.outside / 'folder'}, not a real folder" in result.err
    )


def test_agent_folder_link_is_refused_by_the_fetcher(box):
    committed_link(box, ".claude", box.outside / "folder")
    result = box.run("fetch-external-skills", "--agent", "claude")
    assert result.code == 2 and ".claude is a symbolic link" in result.err


def test_registry_linked_outside_is_not_written_through(box):
    os.remove(box.repo / "people/alice/skills.json")
    committed_link(box, "people/alice/skills.json", box.outside / "victim.json")
    result = box.run("skills-promote", "tidy", "--from", "global", "--to", "off")
    assert result.code == 2
    assert f"is a symbolic link to {box.outside / 'victim.json'}, leading outside" in result.err


def test_lock_file_linked_outside_is_not_written_through(box):
    (box.repo / "skills/tidy/SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use tidy.\nversion: 1.0.0\n---\n"
    )
    committed_link(box, "skills.lock.json", box.outside / "victim.lock.json")
    result = box.run("exobrain", "lock")
    assert result.code == 2
    assert (
        f"skills.lock.json is a symbolic link to {box.outside / 'victim.lock.json'}" in result.err
    )


def test_skills_folder_linked_outside_receives_no_import(box):
    committed_link(box, "people/bob/skills", box.outside / "folder")
    source = skill_with(box.base, "newcomer", {})
    result = box.run("exobrain", "import", str(source), "--into", "people/bob")
    assert result.code == 1
    assert f"people/bob/skills is a symbolic link to {box.outside / 'folder'}" in result.text


def test_gitattributes_linked_to_bashrc_is_left_alone(box):
    committed_link(box, ".gitattributes", box.bashrc)
    result = box.run("exobrain", "signal", "vote", "skill:tidy", "up")
    assert result.code == 0  # the signal counts; merges only lose their safety net
    assert ".gitattributes not updated" in result.err and "is a symbolic link" in result.err
    assert (box.repo / "signals/alice/laptop.jsonl").is_file()


def test_connection_file_linked_outside_stops_connect_before_any_change(box):
    os.remove(box.repo / ".exobrain.json")
    committed_link(box, ".exobrain.json", box.outside / "victim.json")
    result = box.run("connect-agent", "claude", "--person", "alice")
    assert result.code == 2
    assert f".exobrain.json is a symbolic link to {box.outside / 'victim.json'}" in result.err
    assert "nothing was changed" in result.err
    assert not (box.repo / ".claude").exists()


@pytest.mark.parametrize(
    ("agent", "rel", "target"),
    [
        ("copilot", ".github/instructions", "folder"),
        ("cursor", ".cursor/rules", "folder"),
        ("gemini", ".gemini", "folder"),
        ("gemini", "GEMINI.md", "notes.txt"),
        ("opencode", ".opencode/opencode.json", "victim.json"),
    ],
)
def test_a_context_file_linked_outside_receives_nothing(box, agent, rel, target):
    """The files connect-agent writes for Copilot, Cursor, Gemini and OpenCode are planned
    through the linker inside the repository like the others: a committed link leading out
    is refused (a folder) or left alone (a file), and nothing is written where it points."""
    registry = box.repo / "people/alice/skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append({"name": "extra", "owner": "alice", "tier": "optional"})
    registry.write_text(json.dumps(data, indent=2) + "\n")
    build_tree(box.repo, {"people/alice/skills/extra/SKILL.md": skill_md("extra", "An extra.")})
    committed_link(box, rel, box.outside / target)
    result = box.run("connect-agent", agent, "--person", "alice")
    if target == "folder":
        assert result.code == 2
        assert f"{rel} is a symbolic link to {box.outside / target}, not a real folder" in (
            result.err
        )
    else:
        assert f"! skipped       {rel}: {box.repo / rel}: expected a regular file" in result.out
    # the box checks that nothing outside the repository changed
