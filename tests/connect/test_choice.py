"""Choosing the connection: flags > stored file > wizard (terminals only) > guest."""

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exobrain.connect.choice import Flags, from_flags, wizard
from exobrain.connect.connector import connect
from exobrain.connect.request import Request
from exobrain.errors import OperationFailed, UsageError
from exobrain.scopes import Connection, ScopeConfig
from tests.support.helpers import exobrain


def sample(tmp_path, connection=None):
    return exobrain(
        tmp_path / "x",
        registries={"people/alice": [{"name": "mine", "owner": "alice", "tier": "always"}]},
        scopes=["groups/acme", "groups/beta", "people/alice", "people/alice/hosts/laptop"],
        skills={"people/alice/mine": None},
        connection=connection,
    )


class Script:
    """Scripted answers for the wizard's prompt and confirm callables."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked: list[str] = []
        self.said: list[str] = []

    def prompt(self, text, default):
        self.asked.append(text)
        answer = self.answers.pop(0)
        return default if answer is None else answer

    def confirm(self, text, default):
        self.asked.append(text)
        answer = self.answers.pop(0)
        return default if answer is None else answer

    def run(self, root, login="alice", hostname="laptop"):
        return wizard(
            root,
            ScopeConfig(),
            prompt=self.prompt,
            confirm=self.confirm,
            echo=self.said.append,
            login=login,
            hostname=hostname,
        )


def test_wizard_existing_person_and_host_with_a_group(tmp_path):
    root = sample(tmp_path)
    script = Script(None, True, None, "acme, nope", False)  # no, do not create groups/nope
    choice = script.run(root)
    assert script.said[0] == "People here: alice"
    assert "people/alice already exists. Is that you?" in script.asked
    assert choice.connected_scopes == ["groups/acme", "people/alice/hosts/laptop"]
    assert choice.person == "alice" and choice.create == []
    assert choice.notes == ["no group 'nope' here; skipped"]
    assert "There is no group 'nope' here. Create groups/nope?" in script.asked


def test_wizard_offers_to_create_a_missing_group(tmp_path):
    root = sample(tmp_path)
    script = Script(None, True, None, "Infra", True)
    report = connect(Request("claude", root, wizard=lambda ws: script.run(ws.root)))
    assert "There is no group 'infra' here. Create groups/infra?" in script.asked
    assert report.connected_scopes == ["groups/infra", "people/alice/hosts/laptop"]
    assert "created the scope groups/infra" in report.notes
    assert (root / "groups/infra/AGENTS.md").read_text().startswith("# infra\n")
    registry = json.loads((root / "groups/infra/skills.json").read_text())
    assert registry == {"$schema": "../../skills.schema.json", "skills": []}


def test_flags_offer_to_create_missing_scopes_on_a_terminal(tmp_path):
    root = sample(tmp_path)
    asked = []

    def yes(text, default):
        asked.append(text)
        return True

    flags = Flags(person="dana", host="lap1", groups=("team",))
    report = connect(Request("claude", root, flags=flags, confirm=yes, hostname="other"))
    assert asked == [
        "people/dana is not a scope yet. Create this person scope?",
        "people/dana/hosts/lap1 is not a scope yet. Create this host scope?",
        "groups/team is not a scope yet. Create this group scope?",
    ]
    assert report.connected_scopes == ["groups/team", "people/dana/hosts/lap1"]
    for scope in ("people/dana", "people/dana/hosts/lap1", "groups/team"):
        assert (root / scope / "AGENTS.md").is_file() and (root / scope / "skills.json").is_file()


def test_flags_without_a_terminal_name_the_command_that_makes_the_scope(tmp_path):
    root = sample(tmp_path)
    with pytest.raises(OperationFailed) as failed:
        connect(Request("claude", root, flags=Flags(person="dana", groups=("team",))))
    assert "exobrain scope new people/dana" in str(failed.value)
    assert "exobrain scope new groups/team" in str(failed.value)
    assert not (root / "people/dana").exists() and not (root / "groups/team").exists()


def test_wizard_refuses_generic_login_without_confirmation(tmp_path):
    root = sample(tmp_path)
    script = Script("root", False, "root", True, True, "", "")
    choice = script.run(root, login="root")
    assert script.asked.count("'root' looks like a shared login, not a person. Use it anyway?") == 2
    assert choice.person == "root" and choice.create == ["people/root"]
    assert choice.connected_scopes == ["people/root"]


def test_wizard_taken_id_not_mine_asks_again_then_creates(tmp_path):
    root = sample(tmp_path)
    script = Script("alice", False, "carol", True, "box", True, "")
    choice = script.run(root)
    assert choice.create == ["people/carol", "people/carol/hosts/box"]
    assert choice.connected_scopes == ["people/carol/hosts/box"]


def test_wizard_empty_handle_is_guest(tmp_path):
    choice = Script("").run(sample(tmp_path), login="ubuntu")
    assert choice.connected_scopes == [] and choice.person is None


def test_wizard_creates_scopes_when_connect_applies(tmp_path):
    root = sample(tmp_path)
    script = Script("carol", True, "", "")
    report = connect(Request("claude", root, wizard=lambda ws: script.run(ws.root)))
    assert (root / "people/carol/AGENTS.md").read_text().startswith("# carol\n")
    assert report.source == "wizard" and report.connected_scopes == ["people/carol"]
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["person"] == "carol" and stored["agents"] == ["claude"]
    again = Script()  # stored now: the wizard is not asked again
    connect(Request("claude", root, wizard=lambda ws: again.run(ws.root)))
    assert again.asked == []


def test_wizard_is_not_used_for_flags_or_dry_run(tmp_path):
    root = sample(tmp_path)

    def never(ws):
        raise AssertionError("wizard called")

    report = connect(Request("claude", root, dry_run=True, wizard=never))
    assert report.source == "guest" and not (root / ".exobrain.json").exists()
    report = connect(
        Request("claude", root, flags=Flags(person="alice"), wizard=never, hostname="laptop")
    )
    assert report.connected_scopes == ["people/alice/hosts/laptop"]


def test_flags_resolution(tmp_path):
    root = sample(tmp_path)
    stored = Connection(["groups/beta"], "alice")
    config = ScopeConfig()
    choice = from_flags(root, config, Flags(host="laptop"), stored, "other")
    assert choice.connected_scopes == ["people/alice/hosts/laptop"]  # person from the stored file
    choice = from_flags(root, config, Flags(person="alice", groups=("acme", "zzz")), stored, "x")
    assert choice.connected_scopes == ["groups/acme", "people/alice"]
    assert choice.notes == [
        "no host scope people/alice/hosts/x; connected people/alice only",
        "no scope groups/zzz (groups/zzz/AGENTS.md missing; create it: exobrain scope new "
        "groups/zzz)",
    ]
    with pytest.raises(OperationFailed, match="matched no scope"):
        from_flags(root, config, Flags(scopes=("people/nobody",)), stored, "x")
    with pytest.raises(UsageError, match="must not contain '..'|without '.' or '..'"):
        from_flags(root, config, Flags(scopes=("../etc",)), stored, "x")
    with pytest.raises(UsageError, match="--person"):
        from_flags(root, config, Flags(person="Bad Name"), stored, "x")
    with pytest.raises(UsageError, match="--host needs --person"):
        from_flags(root, config, Flags(host="laptop"), Connection(), "x")


def _read_until(fd, needle: bytes, timeout=20.0) -> bytes:
    seen = b""
    end = time.monotonic() + timeout
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            raise AssertionError(f"no {needle!r} in {seen!r}")
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_wizard_runs_on_a_real_terminal(tmp_path):
    root = sample(tmp_path)
    script = Path(sys.executable).parent / "connect-agent"
    pid, fd = pty.fork()
    if pid == 0:  # the child: connect-agent with stdin and stdout on the terminal
        os.chdir(root)
        os.execv(sys.executable, [sys.executable, str(script), "claude"])
    try:
        _read_until(fd, b"Your handle")
        os.write(fd, b"alice\n")
        _read_until(fd, b"Is that you?")
        os.write(fd, b"y\n")
        _read_until(fd, b"host name")
        os.write(fd, b"laptop\n")
        _read_until(fd, b"Groups to join")
        os.write(fd, b"beta\n")
        output = _read_until(fd, b"done:")
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["connected_scopes"] == ["groups/beta", "people/alice/hosts/laptop"]
    assert (root / ".claude/skills/mine").is_symlink()


def test_no_terminal_means_no_wizard(tmp_path):
    root = sample(tmp_path)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "connect-agent"), "claude"],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "connected as guest" in done.stdout and "Your handle" not in done.stdout
