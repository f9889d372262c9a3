"""A committed Python package never runs as the toolkit (issue 30, the critical one).

``python -m`` puts the current folder first on the import path, and every process the toolkit
starts -- or has an agent start -- begins in the repository, where anyone who can push may
commit an ``exobrain/`` folder. Each test here commits such a package (its ``__init__.py``
writes a marker into the user's folder), starts the process exactly as the agent or the
toolkit does (the command line written into the agent's configuration or settings, in the
repository folder), and checks that the marker never appears and that the real toolkit did
the work.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from exobrain.connect.mcpconfig import config_file, servers_keys
from exobrain.instance.create import install_pre_commit
from exobrain.search import background, encoders
from exobrain.search.engine import search
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, git
from tests.support.hostile import invoke

#: How long a started process may take on a loaded machine before the test gives up on it.
WAIT = 120


def plant(root: Path, marker: Path, *packages: str) -> None:
    """Commit a package folder for each name at the root of ``root``: importing it (or running
    it with ``-m``) writes ``marker`` and nothing else."""
    code = f"from pathlib import Path\nPath({str(marker)!r}).write_text({{!r}})\n"
    for name in packages or ("exobrain",):
        build_tree(
            root,
            {
                f"{name}/__init__.py": code.format(name),
                f"{name}/__main__.py": code.format(f"{name} main"),
            },
        )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a helpful package")


def mcp_command(root: Path, agent: str) -> list[str]:
    """The server command connect-agent wrote into ``agent``'s project configuration."""
    if agent == "codex":
        entry = tomllib.loads((root / ".codex/config.toml").read_text())["mcp_servers"]
        return [entry["exobrain"]["command"], *entry["exobrain"]["args"]]
    path, _ = config_file(agent, root, False)
    entry = json.loads(path.read_text())
    for key in servers_keys(agent, root, False):
        entry = entry[key]
    entry = entry["exobrain"]
    command = entry["command"]
    return [*command] if isinstance(command, list) else [command, *entry["args"]]


def ask_server(root: Path, command: list[str]) -> tuple[str, list[str]] | None:
    """Start the server as an agent does (its command, in the repository folder), initialise
    it and list the skills: (the server's name, the listed refs), None when it never answered
    (what a planted package that is not the server makes of it)."""
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        env={**os.environ, background.ENV: "0"},
        cwd=str(root),
    )

    async def session_run() -> tuple[str, list[str]]:
        with anyio.fail_after(WAIT):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    started = await session.initialize()
                    listed = await session.call_tool("list", {"types": ["skill"]})
        rows = (listed.structured_content or {}).get("rows", [])
        return started.server_info.name, [row["ref"] for row in rows]

    try:
        return anyio.run(session_run)
    except Exception:  # the client's errors come grouped, whatever broke the session
        return None


@pytest.mark.parametrize("agent", ["claude", "gemini", "opencode", "codex"])
def test_the_mcp_server_an_agent_starts_is_the_installed_one(sandbox, agent):
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    connected = invoke(sandbox.root, ["connect-agent", agent, "--mcp"])
    assert connected.code == 0, connected.text
    path, _ = config_file(agent, sandbox.root, False)
    sandbox.expected.append(path)  # Claude's entry: in the user's file, under the project
    command = mcp_command(sandbox.root, agent)
    answered = ask_server(sandbox.root, command)
    assert not marker.exists(), marker.read_text()
    assert answered is not None, command
    name, refs = answered
    assert name == "exobrain" and "skill:hello@global" in refs
    assert command[1:4] == ["-I", "-m", "exobrain.mcp"]


def hook_line(settings: Path, event: str) -> str:
    """The command of the one hook connect-agent wrote under ``event``."""
    groups = json.loads(settings.read_text())["hooks"][event]
    return groups[0]["hooks"][0]["command"]


@pytest.mark.parametrize(
    ("agent", "settings", "event", "payload"),
    [
        (
            "claude",
            ".claude/settings.local.json",
            "PostToolUse",
            {"tool_name": "Skill", "tool_input": {"skill": "hello"}},
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "AfterTool",
            {"tool_name": "activate_skill", "tool_input": {"name": "hello"}},
        ),
    ],
)
def test_the_usage_hook_an_agent_runs_is_the_installed_one(
    sandbox, monkeypatch, agent, settings, event, payload
):
    monkeypatch.setenv("EXOBRAIN_HOST", "laptop")
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    connected = invoke(sandbox.root, ["connect-agent", agent, "--track-usage"])
    assert connected.code == 0, connected.text
    line = hook_line(sandbox.root / settings, event)
    done = subprocess.run(  # as the agent runs a hook: through the shell, in the repository
        line,
        shell=True,
        cwd=sandbox.root,
        input=json.dumps({**payload, "cwd": str(sandbox.root)}),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0 and done.stderr == "", done.stderr
    ledger = sandbox.root / "signals/alice/laptop.jsonl"
    recorded = [json.loads(text) for text in ledger.read_text().splitlines()]
    assert [(r["skill"], r["kind"], r["agent"]) for r in recorded] == [
        ("skill:hello@global", "usage", agent)
    ]
    assert shlex.split(line)[1:4] == ["-I", "-m", "exobrain.signals.usage_hook"]


def test_the_background_search_build_is_the_installed_one(sandbox, monkeypatch):
    marker = sandbox.victim / "pwned"
    plant(sandbox.root, marker)
    monkeypatch.setattr(encoders, "INLINE_SECONDS", 0.0)  # so the search leaves it the work
    monkeypatch.setenv(background.ENV, "1")
    first = search(open_workspace(sandbox.root), "hello")
    assert any("in the background" in note for note in first.notes), first.notes
    code = background.started[-1].wait(timeout=WAIT)
    log = (sandbox.root / ".exobrain-cache" / background.LOG_FILE).read_text("utf-8")
    assert not marker.exists(), marker.read_text()
    assert code == 0 and log == "", log
    later = search(open_workspace(sandbox.root), "hello")
    assert later.pending == {} and later.update.embedded == {}  # the build embedded them all


def test_the_selftest_suite_runs_the_installed_toolkit_and_pytest(sandbox):
    """The suite's own tests are the repository's (that is what the check runs); the
    ``exobrain`` they import and the pytest that runs them are not."""
    marker = sandbox.victim / "pwned"
    build_tree(
        sandbox.root,
        {
            "tests/__init__.py": "",
            "tests/test_toolkit.py": (
                "from pathlib import Path\nimport exobrain\n\n"
                "def test_the_installed_toolkit():\n"
                "    root = Path(__file__).resolve().parents[1]\n"
                "    assert not Path(exobrain.__file__).resolve().is_relative_to(root)\n"
            ),
        },
    )
    plant(sandbox.root, marker, "exobrain", "pytest")
    assert invoke(sandbox.root, ["exobrain", "trust", "--suite"]).code == 0  # read, then trusted
    result = invoke(sandbox.root, ["exobrain", "selftest", "--suite", "tests", "--json"])
    assert not marker.exists(), marker.read_text()
    suite = {c["name"]: c for c in json.loads(result.out)["checks"]}["test-suite"]
    assert suite["status"] == "pass", suite
    assert suite["detail"].startswith("pytest -x tests: 1 passed"), suite


def test_pre_commit_install_in_an_instance_is_the_installed_one(sandbox, monkeypatch):
    monkeypatch.setenv("PRE_COMMIT_HOME", str(sandbox.scratch / "pre-commit"))  # its own cache
    marker = sandbox.victim / "pwned"
    build_tree(sandbox.root, {".pre-commit-config.yaml": "repos: []\n"})
    plant(sandbox.root, marker, "pre_commit")
    notes = install_pre_commit(sandbox.root)
    assert not marker.exists(), marker.read_text()
    assert notes and notes[0].startswith("pre-commit hook installed"), notes
    hook = sandbox.root / ".git/hooks/pre-commit"
    assert "pre-commit" in hook.read_text()  # pre-commit's own hook script
