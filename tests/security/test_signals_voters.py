"""Signals worth counting (issue 30, item 6).

* A folder is not a person: fifty committed folders ``signals/fakeN/`` counted as fifty voters.
  Now a ledger counts only when its folder names a person of the repository (``people/<id>``
  with its AGENTS.md, or the placeholder ``guest``); the others are named by skills-validate
  and ``exobrain signals`` and move no aggregate, score or search ranking.
* One person's notes can never drop their own signals: a ledger over its 64 MB cap is skipped
  whole by every reader. A write that would pass the cap sheds the calibration notes first,
  skills-validate names a ledger over the cap as an error, and compaction repairs one.
"""

from __future__ import annotations

import json

import pytest

from exobrain.signals.ledger import LEDGER_LIMIT, dump_line, make_signal
from tests.support.helpers import build_tree
from tests.support.hostile import invoke

HELLO = "skill:hello@global"
FAKES = 50


@pytest.fixture
def scene(sandbox, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    return sandbox


def cast(root, *argv):
    result = invoke(root, ["exobrain", "signal", *argv])
    assert result.code == 0, result.text
    return result


def listing(root, ref=HELLO):
    result = invoke(root, ["exobrain", "signals", ref, "--json"])
    assert result.code == 0, result.text
    return json.loads(result.out)


def fake_voters(root, count=FAKES):
    for i in range(count):
        line = make_signal("vote", HELLO, 1, by=f"fake{i}", host="h")
        build_tree(root, {f"signals/fake{i}/h.jsonl": dump_line(line)})


def test_fifty_folders_are_not_fifty_voters(scene):
    root = scene.root
    cast(root, "vote", HELLO, "down")
    quality_before = invoke(root, ["exobrain", "quality", HELLO, "--json"]).out
    search_before = invoke(root, ["exobrain", "search", "hello", "--json"]).out
    fake_voters(root)
    facts = listing(root)
    assert facts["aggregate"]["votes"] == {"up": 0, "down": 1, "voters": 1}
    assert [line["by"] for line in facts["signals"]] == ["alice"]
    assert len(facts["not_counted"]) == FAKES and "signals/fake0" in facts["not_counted"]
    assert invoke(root, ["exobrain", "quality", HELLO, "--json"]).out == quality_before
    assert invoke(root, ["exobrain", "search", "hello", "--json"]).out == search_before
    text = invoke(root, ["exobrain", "signals", HELLO])
    assert text.code == 0
    assert f"{FAKES} ledger folder(s) not counted, naming no person of the repository" in text.err
    assert "exobrain scope new people/<id>" in text.err
    validate = invoke(root, ["skills-validate"])
    assert validate.code == 0, validate.text
    assert (
        "WARNING signals-stranger: signals/fake7: 1 ledger(s) of 'fake7', who is no person of "
        "the repository: not counted; make the person's scope (exobrain scope new "
        "people/fake7) or remove the folder" in validate.out
    )
    assert validate.out.count("signals-stranger") == FAKES


def test_making_the_person_s_scope_admits_the_voter_and_the_cache_sees_it(scene):
    root = scene.root
    fake_voters(root, 2)
    assert listing(root)["aggregate"]["votes"]["voters"] == 0  # (cached now)
    build_tree(root, {"people/fake1/AGENTS.md": "# fake1\n"})
    facts = listing(root)
    assert facts["aggregate"]["votes"] == {"up": 1, "down": 0, "voters": 1}
    assert facts["not_counted"] == ["signals/fake0"]
    (root / "people/fake1/AGENTS.md").unlink()
    assert listing(root)["aggregate"]["votes"]["voters"] == 0


def test_a_nested_person_scope_is_a_person_and_guest_is_one_voter(scene):
    root = scene.root
    build_tree(root, {"groups/acme/people/bo/AGENTS.md": "# bo\n"})
    for person in ("bo", "guest"):
        line = make_signal("vote", HELLO, 1, by=person, host="h")
        build_tree(root, {f"signals/{person}/h.jsonl": dump_line(line)})
    facts = listing(root)
    assert facts["aggregate"]["votes"] == {"up": 2, "down": 0, "voters": 2}
    assert facts["not_counted"] == []


def test_a_calibration_note_is_capped_when_written(scene):
    root = scene.root
    result = invoke(
        root, ["exobrain", "signal", "calibration", HELLO, "true", "--note", "n" * (2 << 20)]
    )
    assert result.code == 2
    assert "a calibration note is at most 2000 characters, not 2097152" in result.err
    assert not (root / "signals/alice").exists()


def numbers(facts):
    totals = facts["aggregate"]
    return totals["votes"], totals["usage"]["uses"], totals["calibration"], totals["ranks"]


def filled(head, unit, size):
    """``head`` lines, then lines ``unit(2000)`` and one or two shorter ones: exactly ``size``
    bytes (``unit(k)`` is a line whose free text has ``k`` characters)."""
    data = "".join(map(dump_line, head))
    full, base = unit(2000), len(unit(1)) - 1
    count, rest = divmod(size - len(data), len(full))
    if rest > base:
        tail = [unit(rest - base)]
    else:  # too little left for a line of its own: two shorter ones instead of the last
        count, rest = count - 1, rest + len(full)
        tail = [unit(1000), unit(rest - 2 * base - 1000)]
    data += full * count + "".join(tail)
    assert len(data.encode()) == size
    return data, count + len(tail)


def ledger_of_notes(root, size):
    """alice's laptop ledger of ``size`` bytes: a vote, a rank and two uses, then outcomes
    with notes of 2,000 characters (the most a note may hold)."""
    head = [
        make_signal("vote", HELLO, 1, by="alice", host="laptop"),
        make_signal("rank", HELLO, 0.75, dimension="clarity", by="alice", host="laptop"),
        make_signal("usage", HELLO, 1, by="alice", host="laptop"),
        make_signal("usage", HELLO, 1, by="alice", host="laptop"),
    ]

    def noted(k):
        line = make_signal("calibration", HELLO, True, by="alice", host="laptop", note="n" * k)
        return dump_line(line)

    data, outcomes = filled(head, noted, size)
    path = root / "signals/alice/laptop.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data)
    return path, outcomes


@pytest.mark.slow
def test_a_write_that_would_pass_the_cap_sheds_the_notes_and_keeps_every_number(scene):
    root = scene.root
    path, outcomes = ledger_of_notes(root, LEDGER_LIMIT - 50)
    assert path.stat().st_size <= LEDGER_LIMIT
    before = listing(root)
    assert numbers(before)[2] == {"completed": outcomes, "outcomes": outcomes, "rate": 1.0}
    cast(root, "usage", HELLO)  # one more line would not fit: the notes go first
    assert path.stat().st_size <= LEDGER_LIMIT // 10
    after = listing(root)
    votes, uses, calibration, ranks = numbers(before)
    assert numbers(after) == (votes, uses + 1, calibration, ranks)
    assert '"note"' not in path.read_text()
    assert after["problems"] == []


def test_an_oversized_ledger_is_a_validate_error_and_compaction_repairs_it(scene):
    root = scene.root
    path, outcomes = ledger_of_notes(root, LEDGER_LIMIT + (1 << 20))
    size = path.stat().st_size
    skipped = listing(root)
    assert skipped["aggregate"]["votes"]["voters"] == 0  # every reader skips it whole
    validate = invoke(root, ["skills-validate"])
    assert validate.code == 1, validate.text
    assert (
        f"ERROR   signals-ledger-too-large: signals/alice/laptop.jsonl: {size:,} bytes (65 MB), "
        "over the 64 MB cap for a ledger: every reader skips it, so none of its signals "
        "count; compact it (exobrain signals --compact --person alice)" in validate.out
    )
    compacted = invoke(root, ["exobrain", "signals", "--compact", "--person", "alice"])
    assert compacted.code == 0, compacted.text
    assert path.stat().st_size <= LEDGER_LIMIT
    facts = listing(root)
    assert facts["aggregate"]["votes"] == {"up": 1, "down": 0, "voters": 1}
    assert facts["aggregate"]["usage"]["uses"] == 2
    assert facts["aggregate"]["calibration"]["outcomes"] == outcomes
    assert "signals-ledger-too-large" not in invoke(root, ["skills-validate"]).out


def test_a_write_into_an_oversized_ledger_repairs_it(scene):
    root = scene.root
    path, outcomes = ledger_of_notes(root, LEDGER_LIMIT + (1 << 20))
    cast(root, "vote", HELLO, "down")
    assert path.stat().st_size <= LEDGER_LIMIT
    facts = listing(root)
    assert facts["aggregate"]["votes"] == {"up": 0, "down": 1, "voters": 1}
    assert facts["aggregate"]["calibration"]["outcomes"] == outcomes


@pytest.mark.slow
def test_a_ledger_full_of_comments_refuses_the_write_and_loses_nothing(scene):
    root = scene.root

    def comment(k):
        return dump_line(make_signal("comment", HELLO, "c" * k, by="alice", host="laptop"))

    vote = make_signal("vote", HELLO, 1, by="alice", host="laptop")
    path = root / "signals/alice/laptop.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(filled([vote], comment, LEDGER_LIMIT - 50)[0])
    before = path.read_bytes()
    result = invoke(root, ["exobrain", "signal", "usage", HELLO])
    assert result.code == 1
    assert "signals/alice/laptop.jsonl: " in result.err
    assert "no room under the 64 MB cap for a ledger; nothing was written" in result.err
    assert "--host NAME" in result.err
    assert path.read_bytes() == before
    assert listing(root)["aggregate"]["votes"]["voters"] == 1


def test_a_signal_of_someone_with_no_scope_is_kept_with_a_warning(scene):
    root = scene.root
    connection = json.loads((root / ".exobrain.json").read_text())
    (root / ".exobrain.json").write_text(json.dumps({**connection, "person": "zed"}))
    result = cast(root, "vote", HELLO, "up")
    assert (
        "warning: zed is no person of the repository, so signals/zed/ is not counted; it "
        "counts once people/zed exists (exobrain scope new people/zed)" in result.err
    )
    assert (root / "signals/zed/laptop.jsonl").is_file()
    assert listing(root)["not_counted"] == ["signals/zed"]
