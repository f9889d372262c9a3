"""Archives and copies (issue 15, finding 1): an imported archive must not write anywhere, and
a skill carrying a link that leads outside it must be refused by every command that copies,
hashes or ships it — judged by one rule, the link followed through the tree as it stands."""

from __future__ import annotations

import json
import os
import stat
import warnings
import zipfile

from tests.support.sandbox import skill_with
from tests.support.upstream import Upstream, external

#: Enough "p/" hops and ".." to climb from any temporary folder to the root.
DEPTH = 40


def hostile_zip(path, entries):
    """Write a zip: ``entries`` is a list of (name, text, is_link)."""
    with zipfile.ZipFile(path, "w") as handle, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a duplicate name is the point of one attack
        for name, text, is_link in entries:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            mode = stat.S_IFLNK | 0o777 if is_link else stat.S_IFREG | 0o644
            info.external_attr = mode << 16
            handle.writestr(info, text)
    return path


def chain():
    """``p -> .`` and ``r -> p/p/…/../..``: both look inside as text, ``r`` reaches ``/``."""
    return [
        ("s/SKILL.md", "---\nname: s\ndescription: Use s for s.\n---\nBody.\n", False),
        ("s/p", ".", True),
        ("s/r", "/".join(["p"] * DEPTH + [".."] * DEPTH), True),
    ]


def test_archive_link_chain_then_a_file_through_it(box):
    through = f"s/r/{str(box.bashrc).lstrip('/')}"
    archive = hostile_zip(box.base / "evil.skill", [*chain(), (through, "pwned\n", False)])
    result = box.run("exobrain", "import", str(archive))
    assert result.code == 2
    assert f"entry {through!r} passes through 's/r', a link" in result.err
    assert "pwned" not in box.bashrc.read_text()
    assert not (box.repo / "people/alice/skills/s").exists()


def test_archive_link_chain_alone_is_refused(box):
    archive = hostile_zip(box.base / "evil.skill", chain())
    result = box.run("exobrain", "import", str(archive))
    assert result.code == 2 and "s/r is a link to 'p/p/" in result.err
    assert "which leads outside it; refusing the archive" in result.err
    assert not (box.repo / "people/alice/skills/s").exists()


def test_archive_link_then_file_of_the_same_name(box):
    archive = hostile_zip(
        box.base / "evil.zip",
        [
            ("s/SKILL.md", "---\nname: s\ndescription: Use s.\n---\n", False),
            ("s/x", str(box.bashrc), True),
            ("s/x", "pwned\n", False),
        ],
    )
    result = box.run("exobrain", "import", str(archive))
    assert result.code == 2 and "entry 's/x' appears twice" in result.err


def test_archive_absolute_link_is_refused(box):
    archive = hostile_zip(
        box.base / "evil.zip",
        [
            ("s/SKILL.md", "---\nname: s\ndescription: Use s.\n---\n", False),
            ("s/pw", "/etc/passwd", True),
        ],
    )
    result = box.run("exobrain", "import", str(archive))
    assert result.code == 2 and "s/pw is a link to '/etc/passwd'" in result.err


def commit_links(box, links):
    """Links inside the committed global skill ``tidy``."""
    for name, target in links.items():
        os.symlink(target, box.repo / "skills/tidy" / name)
    box.commit()


def test_validate_reports_the_link_chain(box):
    commit_links(box, {"p": ".", "r": "/".join(["p"] * DEPTH + [".."] * DEPTH)})
    result = box.run("skills-validate")
    assert result.code == 1
    assert "skills/tidy/r" in result.text and "leading outside the skill" in result.text
    assert "skills/tidy/p" not in result.text


def test_validate_reports_a_link_to_the_root(box):
    commit_links(box, {"r": "/"})
    result = box.run("skills-validate")
    assert result.code == 1
    assert "skills/tidy/r: a symbolic link to '/', leading outside the skill" in result.text


def test_lock_refuses_a_skill_with_an_escaping_link(box):
    (box.repo / "skills/tidy/SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use tidy.\nversion: 1.0.0\n---\n"
    )
    commit_links(box, {"r": "/"})
    result = box.run("exobrain", "lock")
    assert result.code == 1
    assert "skill:tidy@global: r is a symbolic link to '/', leading outside the skill" in result.out
    assert not (box.repo / "skills.lock.json").exists()


def test_export_zip_and_folder_refuse_an_escaping_link(box):
    commit_links(box, {"passwd": "/etc/passwd"})
    for dest in (["--zip", str(box.outside / "out.zip")], ["-o", str(box.outside / "out")]):
        result = box.run("exobrain", "export", "tidy", "--format", "agentskills-io", *dest)
        assert result.code == 1 and "nothing exported" in result.err
        assert "passwd: a symbolic link to '/etc/passwd'" in result.err


def test_fork_refuses_to_copy_a_link_to_etc_passwd(box):
    commit_links(box, {"passwd": "/etc/passwd"})
    result = box.run("exobrain", "fork", "tidy", "--into", "people/alice", "--name", "tidy2")
    assert result.code == 2
    assert "skills/tidy: passwd: a symbolic link to '/etc/passwd'" in result.err
    assert not (box.repo / "people/alice/skills/tidy2").exists()
    assert "tidy2" not in (box.repo / "people/alice/skills.json").read_text()


def test_register_refuses_an_escaping_link(box):
    commit_links(box, {"p": ".", "r": "p/p/../.."})
    result = box.run("exobrain", "register", "skills/tidy", "--bump", "patch")
    assert result.code == 2 and "r: a symbolic link to 'p/p/../..'" in result.err
    assert not (box.repo / "skills.lock.json").exists()


def test_import_of_a_folder_with_a_link_chain_is_skipped(box):
    source = skill_with(box.base, "chained", {})
    os.symlink(".", source / "p")
    os.symlink("p/p/../..", source / "r")
    result = box.run("exobrain", "import", str(source))
    assert result.code == 1 and "r: a symbolic link to 'p/p/../..'" in result.out
    assert not (box.repo / "people/alice/skills/chained").exists()


def test_fetcher_refuses_a_link_chain(box):
    up = Upstream(box.base, {"skills/evil/SKILL.md": "---\nname: evil\ndescription: x\n---\n"})
    os.symlink(".", up.work / "skills/evil/p")
    os.symlink("p/p/../../../..", up.work / "skills/evil/r")
    up.commit({"skills/evil/other.md": "x\n"})
    path = box.repo / "skills.json"
    path.write_text(json.dumps({"skills": [external("evil", up.url)]}))
    result = box.run("fetch-external-skills", "--agent", "claude", "--allow-local")
    assert result.code == 1
    assert "'r' is a symbolic link to 'p/p/../../../..', leading outside the skill" in result.text
    assert not (box.repo / ".claude/skills/evil").exists()
