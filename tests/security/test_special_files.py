"""Only regular files are read, and none past its cap (issue 15, finding 4: FIFOs and sizes).
A FIFO as ``skills.json``, in a skill folder, as a SKILL.md or as a ledger must not hang any
command — each ends within the sandbox's time limit with a message naming the file — and an
oversized SKILL.md or registry is a clear finding, not gigabytes of memory."""

from __future__ import annotations

import os


def versioned(box):
    (box.repo / "skills/tidy/SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use tidy to tidy.\nversion: 1.0.0\n---\nBody.\n"
    )


def fifo_instead_of(path):
    path.unlink()
    os.mkfifo(path)


def test_fifo_as_the_global_registry(box):
    fifo_instead_of(box.repo / "skills.json")
    for argv in (
        ["skills-status"],
        ["skills-validate"],
        ["skills-promote", "--list", "--into", "global"],
        ["connect-agent", "claude", "--person", "alice"],
    ):
        result = box.run(*argv)
        assert result.code == 2, (argv, result.text)
        assert "skills.json: is a FIFO, not a regular file" in result.text, (argv, result.text)
    # search and lock end too (their exit codes on broken input are issue 15's part B)
    assert "tidy" not in box.run("exobrain", "search", "tidy").out
    assert "skill:tidy" not in box.run("exobrain", "lock").out
    export = ["exobrain", "export", "tidy", "--format", "agentskills-io", "-o", str(box.base / "o")]
    assert box.run(*export).code == 2


def test_fifo_in_a_skill_folder(box):
    versioned(box)
    os.mkfifo(box.repo / "skills/tidy/pipe")
    status = box.run("skills-status")
    assert status.code == 0 and "tidy" in status.out
    validate = box.run("skills-validate")
    assert validate.code == 1 and "skills/tidy/pipe: a FIFO, not a regular file" in validate.text
    search = box.run("exobrain", "search", "tidy")
    assert search.code in (0, 1)  # 1: nothing above the relevance floor, no traceback
    lock = box.run("exobrain", "lock")
    assert lock.code == 1 and "skill:tidy@global: pipe is a FIFO, not a regular file" in lock.out
    export = box.run("exobrain", "export", "tidy", "--format", "agentskills-io", "--zip", "t.zip")
    assert export.code == 1 and "pipe: a FIFO, not a regular file" in export.err
    imported = box.run("exobrain", "import", str(box.repo / "skills/tidy"), "--name", "tidy2")
    assert imported.code == 1 and "pipe: a FIFO, not a regular file" in imported.out
    fork = box.run("exobrain", "fork", "tidy", "--into", "people/alice", "--name", "tidy3")
    assert fork.code == 2 and "pipe: a FIFO, not a regular file" in fork.err
    assert not (box.repo / "people/alice/skills/tidy2").exists()
    assert not (box.repo / "people/alice/skills/tidy3").exists()


def test_fifo_as_a_skill_md(box):
    fifo_instead_of(box.repo / "skills/tidy/SKILL.md")
    for argv in (["skills-status"], ["exobrain", "search", "tidy"], ["exobrain", "show", "tidy"]):
        result = box.run(*argv)
        assert result.code in (0, 1, 2), (argv, result.text)
    validate = box.run("skills-validate")
    assert (
        validate.code == 1 and "skills/tidy/SKILL.md: a FIFO, not a regular file" in validate.text
    )


def test_fifo_as_a_ledger(box):
    ledger = box.repo / "signals/alice/laptop.jsonl"
    ledger.parent.mkdir(parents=True)
    os.mkfifo(ledger)
    quality = box.run("exobrain", "quality")
    assert quality.code == 0
    assert "signals/alice/laptop.jsonl: skipped: is a FIFO, not a regular file" in quality.err
    vote = box.run("exobrain", "signal", "vote", "skill:tidy", "up")
    assert vote.code == 2 and "laptop.jsonl: is a FIFO, not a regular file" in vote.err
    assert box.run("exobrain", "signals", "skill:tidy").code == 0


def test_fifo_as_an_import_source(box):
    os.mkfifo(box.base / "pipe.skill")
    result = box.run("exobrain", "import", str(box.base / "pipe.skill"))
    assert result.code == 2 and "neither a folder nor a .skill/.zip archive" in result.err


def test_oversized_skill_md_is_a_finding(box):
    big = "---\nname: tidy\ndescription: Use tidy.\n---\n" + "x" * (2 << 20)
    (box.repo / "skills/tidy/SKILL.md").write_text(big)
    validate = box.run("skills-validate")
    assert validate.code == 2
    assert "skills/tidy/SKILL.md: 2 MB, over the 1 MB cap for a SKILL.md" in validate.text
    search = box.run("exobrain", "search", "tidy")
    assert search.code in (0, 1) and "Traceback" not in search.text


def test_oversized_registry_is_refused(box):
    path = box.repo / "people/alice/skills.json"
    with open(path, "r+b") as handle:
        handle.truncate(33 << 20)  # sparse: the size is what counts, not the bytes
    status = box.run("skills-status")
    assert status.code == 2
    assert "people/alice/skills.json: 33 MB, over the 32 MB cap for this file" in status.text
