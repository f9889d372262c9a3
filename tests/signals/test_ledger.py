"""Writing ledgers: validation, appends that never interleave, who and where, .gitattributes."""

import json
import multiprocessing
import os
import re
import threading
import time

import pytest

from exobrain.errors import UsageError
from exobrain.signals.ledger import (
    UNION_RULE,
    append_line,
    author,
    ensure_union_merge,
    host_id,
    ledger_path,
    locked_ledger,
    make_signal,
    record_signal,
)
from exobrain.util.fileio import atomic_write_text
from exobrain.workspace import open_workspace
from tests.support import ROOT
from tests.support.signal_helpers import TIDY, every_ledger, repo, sig


@pytest.mark.parametrize(
    "kind, value, extra, message",
    [
        ("vote", 2, {}, "vote must be up (1) or down (-1)"),
        ("vote", True, {}, "vote must be up"),
        ("rank", 1.5, {"dimension": "clarity"}, "rank value must be from 0 to 1"),
        ("rank", -0.1, {"dimension": "clarity"}, "rank value must be from 0 to 1"),
        ("rank", "nan", {"dimension": "clarity"}, "finite number"),
        ("rank", 0.5, {"dimension": "style"}, "unknown rank dimension 'style'"),
        ("usage", 2, {}, "its value is 1"),
        ("calibration", "maybe", {}, "calibration outcome must be true"),
        ("fund", -5, {}, "fund amount must be greater than 0"),
        ("fund", 0, {}, "fund amount must be greater than 0"),
        ("fund", "inf", {}, "finite number"),
        ("fund", 1e-7, {}, "below the smallest unit"),
        ("fund", 5, {"currency": "no spaces"}, "currency"),
        ("bogus", 1, {}, "unknown signal kind"),
    ],
)
def test_every_value_is_validated(kind, value, extra, message):
    with pytest.raises(UsageError, match=re.escape(message)) as info:
        make_signal(kind, TIDY, value, by="al", host="h", **extra)
    assert info.value.exit_code == 2


def test_refs_people_and_hosts_are_checked():
    with pytest.raises(UsageError, match="home-qualified"):
        make_signal("usage", "skill:tidy", 1, by="al", host="h")
    with pytest.raises(UsageError, match="person"):
        make_signal("usage", TIDY, 1, by="../x", host="h")
    with pytest.raises(UsageError, match="host"):
        make_signal("usage", TIDY, 1, by="al", host="a/b")


def test_line_shape_and_key_order():
    line = make_signal(
        "rank", TIDY, "0.8", by="al", host="h", dimension="scope", agent="claude", at=0
    )
    assert list(line) == ["ts", "skill", "kind", "value", "dimension", "by", "host", "agent"]
    assert line["ts"] == "1970-01-01T00:00:00.000Z" and line["value"] == 0.8
    assert make_signal("vote", TIDY, "down", by="al", host="h")["value"] == -1
    assert make_signal("calibration", TIDY, "failed", by="al", host="h", note="no")["note"] == "no"
    assert make_signal("usage", TIDY, 1, by="al", host="h", auto=True)["auto"] is True


def _append_many(args):
    root, worker, count = args
    for i in range(count):
        append_line(
            ledger_path(root, "al", "h"),
            make_signal(
                "calibration",
                TIDY,
                True,
                by="al",
                host="h",
                # within the note's 2,000 characters, over PIPE_BUF's 4,096 bytes
                note=f"worker {worker} line {i} " + "€" * 1900,
            ),
            root=root,
        )


def test_concurrent_appenders_never_interleave(tmp_path):
    # long lines (over PIPE_BUF) from four processes at once: every line must stay whole
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.map(_append_many, [(tmp_path, w, 60) for w in range(4)])
    lines = ledger_path(tmp_path, "al", "h").read_text().splitlines()
    assert len(lines) == 240
    notes = {json.loads(line)["note"].rsplit(" ", 1)[0] for line in lines}
    assert len(notes) == 240
    agg = every_ledger(tmp_path)
    assert agg.problems == [] and agg.lines == 240


def test_append_after_a_file_without_final_newline(tmp_path):
    path = ledger_path(tmp_path, "al", "h")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(sig("usage", TIDY, 1)))
    append_line(path, sig("usage", TIDY, 1), root=tmp_path)
    assert len(path.read_text().splitlines()) == 2
    assert sum(every_ledger(tmp_path).usage[TIDY].values()) == 2


def test_an_appender_waiting_on_a_rewrite_writes_to_the_new_file(tmp_path):
    path = ledger_path(tmp_path, "al", "h")
    append_line(path, sig("usage", TIDY, 1), root=tmp_path)
    fd = locked_ledger(path, root=tmp_path)  # a compaction holds the lock …
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (append_line(path, sig("vote", TIDY, 1), root=tmp_path), done.set())
    )
    worker.start()
    time.sleep(0.2)
    assert not done.is_set()  # … the appender waits …
    atomic_write_text(
        path, json.dumps(sig("usage", TIDY, 1)) + "\n", root=tmp_path
    )  # … it swaps the file
    os.close(fd)
    worker.join(5)
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()]
    assert kinds == ["usage", "vote"]


def test_author_is_the_connection_person_else_the_person_scope_else_guest(tmp_path):
    root = repo(tmp_path)
    assert author(open_workspace(root)) == "al"
    (root / ".exobrain.json").write_text('{"connected_scopes": ["people/al"]}')
    assert author(open_workspace(root)) == "al"
    (root / ".exobrain.json").write_text('{"connected_scopes": ["groups/acme"]}')
    assert author(open_workspace(root)) == "guest"
    (root / ".exobrain.json").unlink()
    assert author(open_workspace(root)) == "guest"


def test_host_is_the_option_then_env_then_host_scope_then_hostname(tmp_path, monkeypatch):
    root = repo(tmp_path)
    ws = open_workspace(root)
    monkeypatch.delenv("EXOBRAIN_HOST", raising=False)
    monkeypatch.setattr("os.uname", lambda: type("U", (), {"nodename": "My Laptop.local"})())
    assert host_id(ws) == "My-Laptop"
    assert host_id(ws, "desk") == "desk"
    monkeypatch.setenv("EXOBRAIN_HOST", "envhost")
    assert host_id(ws) == "envhost"
    monkeypatch.delenv("EXOBRAIN_HOST")
    (root / "people/al/hosts/lap").mkdir(parents=True)
    (root / "people/al/hosts/lap/AGENTS.md").write_text("# lap\n")
    (root / ".exobrain.json").write_text('{"connected_scopes": ["people/al/hosts/lap"]}')
    assert host_id(open_workspace(root)) == "lap"
    with pytest.raises(UsageError):
        host_id(ws, "../up")


def test_first_signal_adds_the_union_rule_once_and_keeps_the_file(tmp_path):
    (tmp_path / ".gitattributes").write_text("*.png binary")
    path, warning = record_signal(tmp_path, sig("usage", TIDY, 1))
    assert warning is None and path == ledger_path(tmp_path, "al", "h")
    assert (tmp_path / ".gitattributes").read_text() == f"*.png binary\n{UNION_RULE}\n"
    assert ensure_union_merge(tmp_path) is False
    record_signal(tmp_path, sig("usage", TIDY, 1))
    assert (tmp_path / ".gitattributes").read_text().count("merge=union") == 1


def test_repository_marks_its_ledgers_union():
    text = (ROOT / ".gitattributes").read_text()
    assert UNION_RULE in text.splitlines()
