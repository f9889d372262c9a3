"""Terminal attacks (issue 30, round 3): what a committer writes into a SKILL.md, a ledger, a
file or folder name reaches other members' terminals through every command that prints it.
None of it may reach one raw — no OSC (window title, hyperlink, clipboard), no CSI (7- or
8-bit), no other C0 or C1 control, no DEL, no bidi control — but each is shown escaped and
visible, and ``--json`` stays the same data with those characters as ``\\uXXXX`` escapes.
The free-text fields of a signal are capped and filtered when they are written, from the
command line and from the MCP tools alike.

Each attack runs in a sandbox: a home with the user's files and a folder outside the
repository, which must come out unchanged and whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exobrain.catalog import memo
from exobrain.errors import UsageError
from exobrain.mcp.worker import Exobrain
from exobrain.paths import cache_folder
from exobrain.testkit import isolated_env
from exobrain.workspace import open_workspace
from tests.support.hostile import invoke, shared_exobrain, user_files
from tests.support.sandbox import snapshot
from tests.support.terminal import ATTACKS, COMMANDS, commit, file_name, leaked, plant, run, shown


@pytest.fixture(autouse=True)
def laptop(monkeypatch):
    """Signals are filed under the host ``laptop`` (signals/alice/laptop.jsonl)."""
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """One shared exobrain per attack, planted and committed once: (root, the commit before
    the attack). Commands only read it (their caches aside)."""
    built = {}
    with pytest.MonkeyPatch.context() as patch:
        base = tmp_path_factory.mktemp("terminal")
        for name, value in isolated_env(base / "env", commit_date="2026-01-01T00:00:00Z").items():
            patch.setenv(name, value)
        for attack, text in ATTACKS.items():
            root = shared_exobrain(base / attack)
            before = commit(root, "before")
            plant(root, text)
            commit(root, f"attack: {attack}")
            built[attack] = (root, before)
    return built


@pytest.fixture
def user(tmp_path, isolated_home):
    """The user's files in this test's home and a folder outside: unchanged and all there
    after the attack."""
    made = user_files(tmp_path, isolated_home)
    own = tuple(isolated_home / f / "exobrain" for f in (".cache", ".config", ".local/state"))
    for folder in own:  # the toolkit's own folders: its caches and state live in there
        folder.mkdir(parents=True, exist_ok=True)
    before = snapshot(tmp_path, isolated_home, skip=own)
    yield
    assert all(path.is_file() for path in made), "a user file was removed"
    after = snapshot(tmp_path, isolated_home, skip=own)
    assert sorted(set(before.items()) ^ set(after.items())) == [], "changed outside the sandbox"


def _in_data(data, text: str) -> bool:
    """``text`` is one of the strings of ``data``, or part of one."""
    if isinstance(data, str):
        return text in data
    if isinstance(data, dict):
        return any(_in_data(k, text) or _in_data(v, text) for k, v in data.items())
    if isinstance(data, list):
        return any(_in_data(v, text) for v in data)
    return False


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_command_prints_a_committers_control_characters_raw(scenes, user, command, attack):
    root, before = scenes[attack]
    result = run(root, command, before)
    assert result.code == 0, result.text
    assert leaked(result.out) == [] and leaked(result.err) == [], (command, result.text)
    text = ATTACKS[attack]
    if command == "quality-json":  # the scores carry no text: the ledger's name is a warning
        assert shown(text) in result.err, result.err
    elif command.endswith("-json"):  # the same data: the raw characters come back from JSON
        assert _in_data(json.loads(result.out), text.replace("\x00", "")[:3]), result.out
    else:  # shown, escaped and visible
        assert shown(text) in result.text, result.text


def test_ordinary_text_keeps_its_look(sandbox):
    """Letters of any script, emoji (with their joiners) and CJK are printed as they are."""
    text = "Grüße, привет, مرحبا, 你好, こんにちは — 👩‍💻 ✓"
    (sandbox.root / "skills/world/SKILL.md").write_text(
        f"---\nname: world\ndescription: {text}\n---\nBody: {text}\n", encoding="utf-8"
    )
    for argv in (
        ["skills-status"],
        ["skills-status", "--all"],
        ["exobrain", "show", "skill:world"],
        ["exobrain", "get", "skill:world"],
    ):
        result = invoke(sandbox.root, argv)
        assert result.code == 0 and text in result.out and "\\u" not in result.out, argv
    data = json.loads(invoke(sandbox.root, ["skills-status", "--all", "--json"]).out)
    assert {row["description"] for row in data["skills"] if row["name"] == "world"} == {text}


def test_a_catalog_memo_of_the_old_format_is_not_reused(sandbox, monkeypatch):
    """Memos (and kept rows) made before the filter hold raw text: their version is no
    longer read, so the catalog is rendered anew, filtered."""
    plant(sandbox.root, ATTACKS["osc-title"])
    with monkeypatch.context() as old:
        old.setattr(memo, "MEMO_VERSION", 2)  # the format before the output filter
        key = memo.catalog_key(open_workspace(sandbox.root))
    assert key is not None
    kept = cache_folder(sandbox.root, memo.MEMO_FOLDER) / f"{key}.table.txt"
    kept.write_text(f"OLD MEMO {ATTACKS['osc-title']}\n", encoding="utf-8")
    result = invoke(sandbox.root, ["skills-status", "--all"])
    assert result.code == 0 and "OLD MEMO" not in result.out
    assert leaked(result.text) == [] and "\\x1b]0;owned\\x07" in result.out


LEDGER = "signals/alice/laptop.jsonl"
REF = "skill:hello"
CALIBRATION = ["exobrain", "signal", "calibration", REF, "completed"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        pytest.param(
            [*CALIBRATION, "--note", "x" * 2001],
            "a calibration note is at most 2000 characters, not 2001",
            id="note-over-its-cap",
        ),
        *(
            pytest.param(
                [*CALIBRATION, "--note", f"it worked {text}"],
                f"a calibration note must be one line of plain text: it holds {shown(text)}",
                id=f"note-{attack}",
            )
            for attack, text in ATTACKS.items()
            if attack != "c0-controls"  # a NUL cannot be an argument: the next case has C0
        ),
        pytest.param(
            [*CALIBRATION, "--note", "line one\nline two"],
            "a calibration note must be one line of plain text: it holds \\x0a",
            id="note-newline",
        ),
        pytest.param(
            [*CALIBRATION, "--note", "ding\x07"],
            "a calibration note must be one line of plain text: it holds \\x07",
            id="note-c0",
        ),
        pytest.param(
            ["exobrain", "comment", REF, f"looks fine {ATTACKS['bidi']}"],
            "a comment must be plain text: it holds the bidi control \\u202e",
            id="comment-bidi",
        ),
        pytest.param(
            ["exobrain", "comment", REF, "x" * 2001],
            "a comment is at most 2000 characters, not 2001",
            id="comment-over-its-cap",
        ),
        pytest.param(
            ["exobrain", "comment", REF, f"look {ATTACKS['osc-title']}"],
            "a comment must be plain text: control characters",
            id="comment-osc",
        ),
        pytest.param(
            ["exobrain", "signal", "vote", REF, "up", "--host", f"lap{ATTACKS['osc-title']}"],
            "host 'lap\\x1b]0;owned\\x07' must be letters, digits",
            id="host-osc",
        ),
        pytest.param(
            ["exobrain", "signal", "vote", REF, "up", "--host", f"lap{ATTACKS['bidi']}"],
            "host 'lap\\u202e\\u2066txt.exe",
            id="host-bidi",
        ),
        pytest.param(
            ["exobrain", "signal", "vote", REF, "up", "--host", "h" * 65],
            "must be letters, digits, '.', '_' or '-' (at most 64",
            id="host-over-its-cap",
        ),
        pytest.param(
            ["exobrain", "comment", REF, "hi", "--agent", f"claude{ATTACKS['bidi']}"],
            "unknown agent 'claude\\u202e",
            id="agent-bidi",
        ),
    ],
)
def test_a_free_text_signal_field_is_refused_on_the_command_line(sandbox, argv, says):
    result = invoke(sandbox.root, argv)
    assert result.code == 2, result.text
    assert says in result.err, result.err
    assert leaked(result.text) == []
    assert not (sandbox.root / LEDGER).exists(), "the refused line was written"


def test_a_note_within_its_cap_is_kept_as_written(sandbox):
    note = "Grüße 👩‍💻 " + "x" * 1989
    result = invoke(sandbox.root, [*CALIBRATION, "--note", f"  {note} ", "--json"])
    assert result.code == 0 and json.loads(result.out)["note"] == note
    [line] = (sandbox.root / LEDGER).read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["note"] == note


@pytest.mark.parametrize(
    ("agent", "arguments", "says"),
    [
        pytest.param(
            "claude",
            {"note": "x" * 2001},
            "note is 2001 characters long, at most 2000",
            id="note-over-its-cap",
        ),
        *(
            pytest.param(
                "claude",
                {"note": f"done {text}"},
                f"a calibration note must be one line of plain text: it holds {shown(text)}",
                id=f"note-{attack}",
            )
            for attack, text in ATTACKS.items()
        ),
        pytest.param(
            f"claude{ATTACKS['osc-title']}",
            {},
            "agent 'claude\\x1b]0;owned\\x07' must be lowercase letters, digits or '-'",
            id="agent-osc",
        ),
        pytest.param(
            "claude\u202e", {}, "agent 'claude\\u202e' must be lowercase", id="agent-bidi"
        ),
    ],
)
def test_a_free_text_signal_field_is_refused_by_the_mcp_tools(sandbox, agent, arguments, says):
    server = Exobrain(sandbox.root, agent)
    call = {"kind": "calibration", "ref": REF, "value": True, **arguments}
    with pytest.raises(UsageError) as refused:
        server.call("signal", call)
    assert refused.value.exit_code == 2
    assert says in str(refused.value)
    assert not (sandbox.root / LEDGER).exists(), "the refused line was written"


@pytest.mark.parametrize("attack", ["osc-title", "c1-csi", "bidi"])
def test_a_scope_hooks_path_is_shown_escaped_by_trust_and_connect_agent(sandbox, attack):
    """A group whose folder name carries the attack, in the chain, with a scope hook: the
    hook is named (not run, not trusted) with its path escaped."""
    folder = f"groups/{file_name(ATTACKS[attack])}"
    hook = sandbox.root / folder / "scripts/connect-agent"
    hook.parent.mkdir(parents=True)
    (sandbox.root / folder / "AGENTS.md").write_text("# a group\n", encoding="utf-8")
    hook.write_text(f"#!/bin/sh\necho ran >> {sandbox.victim / 'pwned'}\n", encoding="utf-8")
    hook.chmod(0o755)
    connection = sandbox.root / ".exobrain.json"
    data = json.loads(connection.read_text(encoding="utf-8"))
    data["connected_scopes"].append(folder)
    connection.write_text(json.dumps(data), encoding="utf-8")
    for argv in (["exobrain", "trust"], ["connect-agent", "claude"]):
        result = invoke(sandbox.root, argv)
        assert result.code == 1, (argv, result.text)
        assert leaked(result.text) == [], (argv, result.text)
        assert f"groups/{shown(ATTACKS[attack])}" in result.out, (argv, result.out)
    assert not (sandbox.victim / "pwned").exists()


def test_crontab_lines_are_not_printed_for_a_command_a_terminal_would_act_on(sandbox):
    """Issue 40: ``exobrain crons --crontab`` printed a committed command's escape sequences
    raw (and escaped, it would no longer be the command cron runs): such a job is refused,
    and the listing shows the command escaped."""
    command = "exobrain lock; printf done\x1b]0;owned\x07\u202e"
    jobs = [{"name": "nightly", "schedule": "0 3 * * *", "command": command}]
    (sandbox.root / "crons.json").write_text(json.dumps({"jobs": jobs}))
    result = invoke(sandbox.root, ["exobrain", "crons", "--crontab"])
    assert result.code == 2 and result.out == "", result.text
    assert "crons.json #0 nightly: the command holds \\x1b, a character a terminal acts on" in (
        result.err
    )
    listed = invoke(sandbox.root, ["exobrain", "crons"])
    assert listed.code == 0 and not leaked(listed.text)
    assert "printf done\\x1b]0;owned\\x07\\u202e" in listed.out
