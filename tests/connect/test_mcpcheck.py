"""connect-agent AGENT --mcp registers only a server that starts (issue 39): the exact command
it would write is started and asked ``initialize`` and the check of its imports; a server that
does not answer is refused with the step that fixes it, and nothing is written. After the
README's install alone (no extra), the server starts and Claude Code connects to it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.connect import mcpcheck
from exobrain.connect.mcpconfig import config_file, server_command
from exobrain.errors import OperationFailed
from exobrain.mcp.server import CHECK
from tests.support.helpers import exobrain, skill_md

#: what a Python without a module the server imports says (the SDK's anyio, on main)
MISSING = "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'anyio'\" >&2\nexit 1\n"


def repo(base: Path) -> Path:
    return exobrain(
        base / "repo",
        {"global": [{"name": "tidy", "owner": "ops", "tier": "always"}]},
        scopes=["people/al"],
        skills={"global/tidy": skill_md("tidy")},
    )


def test_the_check_is_the_request_the_server_answers():
    assert mcpcheck.CHECK == CHECK


def test_the_server_connect_agent_would_register_passes_the_check(tmp_path):
    root = repo(tmp_path)
    mcpcheck.check_server(server_command(root, "claude"), root)  # no refusal


def test_a_server_that_cannot_import_is_refused_with_the_install_step(tmp_path, monkeypatch):
    root = repo(tmp_path)
    python = tmp_path / "bin/python3"
    python.parent.mkdir()
    python.write_text(MISSING)
    python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(python))  # the Python the entry would name
    done = CliRunner().invoke(
        connect_cmd, ["claude", "--person", "al", "--mcp", "--repo", str(root)]
    )
    assert done.exit_code == 1, done.output
    said = done.output
    assert "the MCP server this would register does not start" in said
    assert f"{python} cannot import anyio" in said
    assert f"fix: install the toolkit into that Python: {python} -m pip install" in said
    assert "starts it" not in said
    claude, _ = config_file("claude", root, False)
    assert not claude.exists()  # nothing registered
    assert not (root / ".exobrain.json").exists()  # nor connected: refused before anything


def test_a_server_that_answers_nothing_is_refused_with_what_it_said(tmp_path):
    root = repo(tmp_path)
    command = [sys.executable, "-c", "import sys; print('a banner'); sys.exit('broken here')"]
    with pytest.raises(OperationFailed) as refused:
        mcpcheck.check_server(command, root)
    message = str(refused.value)
    assert "it exited without answering initialize (exit 1)" in message
    assert "broken here" in message and "fix: the lines above are the server's own" in message


def test_an_import_path_the_agent_does_not_have_is_not_trusted(tmp_path, monkeypatch):
    """A toolkit importable only through PYTHONPATH is not installed: the agent, started
    from elsewhere, would not have it."""
    root = repo(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "only-here"))
    probe = [sys.executable, "-c", "import os, sys; sys.exit(os.environ.get('PYTHONPATH'))"]
    with pytest.raises(OperationFailed) as refused:
        mcpcheck.check_server(probe, root)
    assert "only-here" not in str(refused.value)


# --- the README's install ---------------------------------------------------------------


@pytest.mark.slow
def test_after_the_base_install_claude_connects_to_the_server_it_registers(base_bin, tmp_path):
    no_sdk = subprocess.run([str(base_bin / "python"), "-c", "import anyio"], capture_output=True)
    assert no_sdk.returncode != 0  # the install alone: no mcp package, no anyio
    root = repo(tmp_path)
    done = subprocess.run(
        [str(base_bin / "connect-agent"), "claude", "--person", "al", "--mcp", "--repo", str(root)],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "claude starts it in this folder" in done.stdout
    path, _ = config_file("claude", root, False)
    entry = json.loads(path.read_text())["projects"][str(root)]["mcpServers"]["exobrain"]
    assert entry["command"] == str(base_bin / "python")
    claude = shutil.which("claude")
    if claude is None:
        pytest.skip("Claude Code is not on PATH (npm install -g @anthropic-ai/claude-code)")
    shown = subprocess.run(
        [claude, "mcp", "list"],
        cwd=root,
        env={
            **os.environ,
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert "exobrain: " in shown.stdout and "Connected" in shown.stdout, shown.stdout + shown.stderr
