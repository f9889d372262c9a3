"""Comments: ``exobrain comment``, replies, the thread in ``signals`` and ``show``, the text
rules, both line readers, aggregation, compaction and merges."""

import json
import subprocess

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.signals.comments import MAX_COMMENT
from exobrain.signals.compact import compact_text
from exobrain.signals.ledger import dump_line
from exobrain.signals.lines import fast_rows, parse_line, parse_record
from exobrain.util import boundedjson
from tests.support.helpers import git
from tests.support.signal_helpers import TIDY, every_ledger, repo, sig, write

LEDGER = "signals/al/lap.jsonl"


def run(root, *args):
    return CliRunner().invoke(exobrain_main, [*args, "--repo", str(root)])


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "lap")
    return repo(tmp_path)


def comment(root, *args) -> dict:
    result = run(root, "comment", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_comments_and_replies_are_listed_as_a_thread(root):
    first = comment(root, "tidy", "Step 3 deletes untracked files; should it ask first?")
    comment(root, "lint", "Unrelated skill, unrelated talk.")
    reply = comment(root, "skill:tidy@global", "Agreed: it should.", "--reply-to", first["id"])
    second = comment(root, "tidy", 'A second "topic"\nover two lines.')
    assert first["id"].startswith("c-") and reply["reply_to"] == first["id"]
    assert first["file"] == LEDGER and "reply_to" not in first

    listed = json.loads(run(root, "signals", "tidy", "--json").output)
    assert [(c["id"], c["depth"]) for c in listed["comments"]] == [
        (first["id"], 0),
        (reply["id"], 1),
        (second["id"], 0),
    ]
    assert listed["comments"][2]["text"] == 'A second "topic"\nover two lines.'
    assert [line["kind"] for line in listed["signals"]] == ["comment"] * 3
    assert listed["problems"] == []

    text = run(root, "signals", "tidy").output
    assert f"[{reply['id']}] re {first['id']}: Agreed: it should." in text
    assert "comments 3" in text

    shown = run(root, "show", "tidy")
    assert shown.exit_code == 0, shown.output
    assert "comments (3):" in shown.output
    assert f"      [{reply['id']}] al " in shown.output  # a reply is indented under its comment
    assert json.loads(run(root, "show", "tidy", "--json").output)["comments"][1]["depth"] == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["tidy", "   "], "a comment needs some text"),
        (["tidy", "x" * (MAX_COMMENT + 1)], f"a comment is at most {MAX_COMMENT} characters"),
        (["tidy", "bell \x07 here"], "control characters"),
        (["tidy", "hi", "--reply-to", "c-000000000000"], "no comment c-000000000000 about"),
        (["tidy", "hi", "--reply-to", "nope"], "'nope' is not a comment id"),
        (["nope", "hi"], "no skill named 'nope' is declared"),
    ],
)
def test_bad_comments_are_refused_and_nothing_is_written(root, args, message):
    result = run(root, "comment", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (root / LEDGER).exists()


def test_a_reply_must_answer_a_comment_on_the_same_skill(root):
    other = comment(root, "lint", "About lint.")
    result = run(root, "comment", "tidy", "About tidy?", "--reply-to", other["id"])
    assert result.exit_code == 2 and f"no comment {other['id']} about {TIDY}" in result.output


def test_both_readers_agree_and_comments_count_in_no_number(root):
    lines = [
        sig("vote", TIDY, 1),
        sig("comment", TIDY, "Plain words."),
        sig("comment", TIDY, 'Quoted "end"'),  # ends with an escape: the full check reads it
        sig("usage", TIDY, 1),
    ]
    lines.append(sig("comment", TIDY, "A reply.", reply_to=lines[1]["id"]))
    text = "".join(dump_line(line) for line in lines)
    for raw in text.splitlines():
        assert parse_line(raw) == parse_record(boundedjson.loads(raw))
    assert fast_rows(text, "al") is None  # the quoted ending needs the line-by-line path
    plain = "".join(dump_line(line) for line in lines if line["value"] != 'Quoted "end"')
    assert fast_rows(plain, "al") is not None  # the written format stays on the fast path

    write(root, lines)
    with_comments = every_ledger(root)
    write(root, [line for line in lines if line["kind"] != "comment"])
    without = every_ledger(root)
    assert with_comments.numbers() == without.numbers() and with_comments.problems == []


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"value": "\x1b[31mred"}, "control characters"),
        ({"value": " padded "}, "trimmed"),
        ({"value": "x" * (MAX_COMMENT + 1)}, f"1 to {MAX_COMMENT} characters"),
        ({"id": "c-XYZ"}, "comment id must look like"),
        ({"reply_to": 7}, "reply_to must be a comment id"),
        ({"snapshot": True}, "a comment line is never a snapshot"),
    ],
)
def test_hand_written_comment_lines_that_break_the_rules_are_skipped(change, reason):
    line = {**sig("comment", TIDY, "fine"), **change}
    result = parse_line(json.dumps(line), "al")
    assert isinstance(result, str) and reason in result


def test_compaction_keeps_old_comments_word_for_word():
    old = [sig("comment", TIDY, "Old debate.", days_ago=90), sig("usage", TIDY, 1, days_ago=90)]
    text = "".join(dump_line(line) for line in old)
    compacted, snapshots = compact_text(text, cutoff_day=10**6, host="lap", owner="al")
    assert snapshots == 1 and dump_line(old[0]) in compacted


def test_comments_on_two_branches_merge_into_one_thread(root):
    first = comment(root, "tidy", "Where should the cache live?")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a question")
    git(root, "checkout", "-q", "-b", "feature")
    answer = comment(root, "tidy", "Under .exobrain-cache.", "--reply-to", first["id"])
    git(root, "commit", "-q", "-am", "an answer")
    git(root, "checkout", "-q", "main")
    other = comment(root, "tidy", "Also: rename step 2.")
    git(root, "commit", "-q", "-am", "another point")
    merge = subprocess.run(["git", "merge", "--no-edit", "feature"], cwd=root, capture_output=True)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    listed = json.loads(run(root, "signals", "tidy", "--json").output)["comments"]
    assert [(c["id"], c["depth"]) for c in listed] == [
        (first["id"], 0),
        (answer["id"], 1),
        (other["id"], 0),
    ]
