"""connect-agent and the fetcher remove only what their record says they created (issue 15,
finding 6): never a user's link into the repository, never a user's copy of an install,
``--force`` included; a symlinked settings file is written through or refused, never replaced;
a broken registry leaves the links alone; links and installs from before the record are
adopted by their exact names."""

from __future__ import annotations

import json
import os
import shutil

from tests.support.helpers import build_tree, skill_md
from tests.support.upstream import Upstream, external

USER_LINKS = ("my-alias", "bob-link", "indirect")


def records(box):
    return box.home / ".local/state/exobrain/owned"


def connected(box):
    """connect-agent claude as alice, then the user's own links in .claude/skills."""
    result = box.run("connect-agent", "claude", "--person", "alice")
    assert result.code == 0, result.text
    skills = box.repo / ".claude/skills"
    assert sorted(os.listdir(skills)) == ["mine", "tidy"]
    build_tree(box.repo, {"people/bob/skills/x/SKILL.md": skill_md("x")})
    os.symlink("../../skills/tidy", skills / "my-alias")
    os.symlink("../../people/bob/skills/x", skills / "bob-link")
    os.symlink(box.repo, box.base / "alias")
    os.symlink(box.outside / "alias/skills/tidy", skills / "indirect")
    return skills


def turn_tidy_off(box):
    path = box.repo / "people/alice/skills.json"
    data = json.loads(path.read_text())
    data["skills"].append({"name": "tidy", "from": "global", "tier": "off"})
    path.write_text(json.dumps(data))


def test_relink_removes_its_own_link_and_keeps_the_users(box):
    skills = connected(box)
    turn_tidy_off(box)
    result = box.run("connect-agent", "claude", "--relink")
    assert result.code == 0 and "- removed" in result.out and "tidy" in result.out
    assert sorted(os.listdir(skills)) == ["bob-link", "indirect", "mine", "my-alias"]


def test_links_from_before_the_record_are_adopted_by_exact_name(box):
    skills = connected(box)
    shutil.rmtree(records(box))  # as an earlier version left things: links, no record
    turn_tidy_off(box)
    result = box.run("connect-agent", "claude", "--relink")
    assert result.code == 0
    assert sorted(os.listdir(skills)) == ["bob-link", "indirect", "mine", "my-alias"]
    record = json.loads(next(records(box).iterdir()).read_text())
    assert {root: sorted(links) for root, links in record["links"].items()} == {
        str(box.repo): ["mine"]
    }


def test_a_broken_registry_leaves_the_links_alone(box):
    skills = connected(box)
    (box.repo / "people/alice/skills.json").write_text('{"skills": [')
    result = box.run("connect-agent", "claude", "--relink")
    assert result.code == 2 and "people/alice/skills.json" in result.err
    assert "links no longer wanted are not removed until they are fixed" in result.err
    assert "mine" in os.listdir(skills)
    assert all((skills / name).is_symlink() for name in USER_LINKS)


def external_box(box, tmp_path):
    """An upstream with two skills, ``pdf`` declared (always, external) and fetched."""
    up = Upstream(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill_md("pdf", "Use for PDF files."),
            "skills/doc/SKILL.md": skill_md("doc", "Use for documents."),
        },
    )
    path = box.repo / "skills.json"
    data = json.loads(path.read_text())
    data["skills"].append(external("pdf", up.url))
    path.write_text(json.dumps(data))
    connection = json.loads((box.repo / ".exobrain.json").read_text())
    connection["external_skills"] = {"allow_local": True}
    (box.repo / ".exobrain.json").write_text(json.dumps(connection))
    result = box.run("connect-agent", "claude", "--person", "alice")
    assert result.code == 0, result.text
    installed = box.repo / ".claude/skills/pdf"
    assert (installed / ".exobrain-source.json").is_file()
    return installed


def test_a_user_copy_of_an_install_survives_relink(box, tmp_path):
    installed = external_box(box, tmp_path)
    copy = installed.parent / "my-pdf"
    shutil.copytree(installed, copy)  # it carries the install record
    path = box.repo / "people/alice/skills.json"
    data = json.loads(path.read_text())
    data["skills"].append({"name": "pdf", "from": "external", "owner": "anthropic", "tier": "off"})
    path.write_text(json.dumps(data))
    result = box.run("connect-agent", "claude", "--relink")
    assert result.code == 0, result.text
    assert not installed.exists()  # ours: removed
    assert (copy / "SKILL.md").is_file() and (copy / ".exobrain-source.json").is_file()


def forged_install(installed, name):
    """A folder the user made from an install: its record edited to claim ``name``."""
    folder = installed.parent / name
    shutil.copytree(installed, folder)
    record = json.loads((folder / ".exobrain-source.json").read_text())
    record.update(name=name, path=f"skills/{name}")
    (folder / ".exobrain-source.json").write_text(json.dumps(record))
    return folder


def test_force_never_deletes_a_folder_it_did_not_install(box, tmp_path):
    installed = external_box(box, tmp_path)
    stray = forged_install(installed, "doc")  # not declared: would be "stale" if it were ours
    result = box.run("fetch-external-skills", "--agent", "claude", "--force")
    assert result.code == 0, result.text
    assert (stray / "SKILL.md").is_file() and installed.is_dir()


def test_force_never_replaces_a_folder_it_did_not_install(box, tmp_path):
    installed = external_box(box, tmp_path)
    stray = forged_install(installed, "doc")
    (stray / "notes.md").write_text("the user's notes\n")
    path = box.repo / "skills.json"
    data = json.loads(path.read_text())
    data["skills"].append(
        external("doc", json.loads(path.read_text())["skills"][-1]["source"]["repo"])
    )
    path.write_text(json.dumps(data))
    result = box.run("fetch-external-skills", "--agent", "claude", "--force")
    assert result.code == 0, result.text  # installed beside it, under the told-apart name
    assert "doc: .claude/skills/doc was not installed by exobrain" in result.text
    assert (stray / "notes.md").read_text() == "the user's notes\n"
    assert (stray.parent / "doc.anthropic/.exobrain-source.json").is_file()


def test_symlinked_settings_inside_the_repository_are_written_through(box):
    build_tree(box.repo, {"config/claude.json": '{"model": "opus"}\n'})
    (box.repo / ".claude").mkdir()
    os.symlink("../config/claude.json", box.repo / ".claude/settings.local.json")
    result = box.run("connect-agent", "claude", "--person", "alice", "--track-usage")
    assert result.code == 0, result.text
    assert (box.repo / ".claude/settings.local.json").is_symlink()
    data = json.loads((box.repo / "config/claude.json").read_text())
    assert data["model"] == "opus" and data["hooks"]["PostToolUse"][0]["matcher"] == "Skill"


def test_symlinked_settings_leading_outside_are_refused(box):
    target = box.outside / "victim.json"
    (box.repo / ".claude").mkdir()
    os.symlink(target, box.repo / ".claude/settings.local.json")
    result = box.run("connect-agent", "claude", "--person", "alice", "--track-usage")
    assert result.code == 2
    assert f".claude/settings.local.json is a symbolic link to {target}, leading outside" in (
        result.err
    )
    assert (box.repo / ".claude/settings.local.json").is_symlink()
