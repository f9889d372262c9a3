"""The permission class: files and folders a member made read-only or unreadable. Root writes
through permission bits, so these run as an unprivileged user (``.ci/run`` does it)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from exobrain.connect.indexes import GENERATED_MARK
from exobrain.connect.linker import apply, plan_file
from exobrain.errors import OperationFailed
from exobrain.signals.aggregate import aggregate_files
from exobrain.signals.ledger import ledger_files
from tests.support.helpers import build_tree, skill_md
from tests.support.hostile import invoke
from tests.support.sandbox import snapshot
from tests.support.signal_helpers import TIDY, sig, write

pytestmark = [
    pytest.mark.permissions,
    pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permission bits"),
]


@contextmanager
def mode(path: Path, bits: int) -> Iterator[Path]:
    """``path`` with permission ``bits`` for the block, restored after (tmp_path cleanup)."""
    before = path.stat().st_mode & 0o7777
    path.chmod(bits)
    try:
        yield path
    finally:
        path.chmod(before)


def test_a_read_only_registry_is_not_replaced(sandbox):
    registry = sandbox.root / "people/alice/skills.json"
    before = registry.read_bytes()
    with mode(registry, 0o444):
        done = invoke(sandbox.root, ["skills-promote", "world", "--from", "global", "--to", "off"])
    assert done.code == 1 and "people/alice/skills.json: is read-only" in done.err
    assert "chmod u+w" in done.err and registry.read_bytes() == before


def test_a_read_only_scope_folder_gets_no_new_registry(sandbox):
    bob = build_tree(sandbox.root, {"people/bob/AGENTS.md": "# bob\n"}) / "people/bob"
    with mode(bob, 0o555):
        done = invoke(
            sandbox.root,
            ["skills-promote", "world", "--from", "global", "--to", "off", "--into", "people/bob"],
        )
        assert sorted(p.name for p in bob.iterdir()) == ["AGENTS.md"]
    assert done.code == 1 and "people/bob" in done.err


def test_an_unreadable_skill_is_named_and_nothing_breaks(sandbox):
    skill = sandbox.root / "skills/hello/SKILL.md"
    with mode(skill, 0o000):
        validate = invoke(sandbox.root, ["skills-validate"])
        status = invoke(sandbox.root, ["skills-status", "--all"])
    assert validate.code == 2 and "skills/hello/SKILL.md" in validate.out + validate.err
    assert "Permission denied" in validate.out + validate.err
    assert status.code in (0, 2) and "world" in status.out


def test_an_unreadable_ledger_is_a_warning_and_a_vote_cannot_go_in(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    assert invoke(sandbox.root, ["exobrain", "signal", "usage", "skill:hello@global"]).code == 0
    ledger = sandbox.root / "signals/alice/laptop.jsonl"
    lines = ledger.read_bytes()
    with mode(ledger, 0o000):
        quality = invoke(sandbox.root, ["exobrain", "quality"])
        vote = invoke(sandbox.root, ["exobrain", "signal", "vote", "skill:hello@global", "up"])
    assert quality.code == 0 and "signals/alice/laptop.jsonl" in quality.err
    assert "Permission denied" in quality.err
    assert vote.code == 1 and "signals/alice/laptop.jsonl" in vote.err
    assert ledger.read_bytes() == lines


def test_a_read_only_agent_folder_is_reported_and_left_as_it_is(sandbox):
    skills = sandbox.root / ".claude/skills"
    skills.mkdir(parents=True)
    with mode(skills, 0o555):
        before = snapshot(sandbox.root / ".claude")
        done = invoke(sandbox.root, ["connect-agent", "claude", "--relink"])
        assert snapshot(sandbox.root / ".claude") == before
    assert done.code == 1 and "not writable" in done.err


def test_a_read_only_lock_file_is_not_replaced(sandbox):
    lock = sandbox.root / "skills.lock.json"
    lock.write_text(json.dumps({"lock_version": 1, "skills": {}}) + "\n")
    build_tree(sandbox.root, {"skills/extra/SKILL.md": skill_md("extra", version="1.0.0")})
    registry = sandbox.root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append({"name": "extra", "owner": "team", "tier": "optional"})
    registry.write_text(json.dumps(data, indent=2) + "\n")
    before = lock.read_bytes()
    with mode(lock, 0o444):
        done = invoke(sandbox.root, ["exobrain", "lock"])
    assert done.code == 1 and "skills.lock.json: is read-only" in done.err
    assert lock.read_bytes() == before


def test_apply_refuses_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OperationFailed, match="not writable"):
            apply([plan_file(folder / "index.md", GENERATED_MARK + "\n", root=tmp_path)])
    finally:
        folder.chmod(0o700)


def test_unreadable_ledger_is_reported_not_fatal(tmp_path):
    write(tmp_path, [sig("usage", TIDY, 1)])
    bad = write(tmp_path, [sig("usage", TIDY, 1, by="bo")])
    bad.chmod(0)
    try:
        agg = aggregate_files(tmp_path, ledger_files(tmp_path))
    finally:
        bad.chmod(0o644)
    assert sum(agg.usage[TIDY].values()) == 1
    assert agg.problems == ["signals/bo/h.jsonl: skipped: cannot read (Permission denied)"]
