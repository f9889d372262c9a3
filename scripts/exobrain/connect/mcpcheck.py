"""Before ``connect-agent AGENT --mcp`` registers the MCP server: start it exactly as the agent
will, and refuse, with the fix, when it does not answer.

A registration that says "claude starts it in this folder" must be true. So the command the
entry holds (this Python, ``-I -m exobrain.mcp --repo ROOT --agent AGENT``) is run in the
repository, with this environment less what an agent started from a desktop or another shell
would not have (``PYTHONPATH``, ``PYTHONHOME``: a toolkit importable only through them is not
installed), and asked, over its stdin, what an agent asks — ``initialize`` — and then to
import every module its tools import (``exobrain/check``, a request of this toolkit's server
only), so a module missing for the first search fails here and not in the agent's session.
The server answers every request before it exits, so closing its stdin after the three lines
is the end of the exchange.

A server that cannot start, dies, or answers with an error is a refusal that names the
Python, what it said (the last lines of its stderr) and the step that fixes it — installing
the toolkit into that Python when a module is missing. Nothing has been written then.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from exobrain.errors import OperationFailed
from exobrain.util.terminal import safe_line

#: The request of the server's check (``exobrain.mcp.server.CHECK``; a test keeps them equal).
CHECK = "exobrain/check"
#: How long the server may take to start and import the toolkit: seconds on a loaded machine;
#: far longer means it hangs.
DEADLINE = 300
#: Variables that change what a Python imports, which the agent's environment need not have.
UNSET = ("PYTHONPATH", "PYTHONHOME")
_MISSING = re.compile(r"No module named '([^']+)'")


def check_server(command: list[str], root: Path) -> None:
    """Refuse (OperationFailed) when ``command``, run in ``root`` as an agent would run it,
    does not answer ``initialize`` and the check of its imports."""
    requests = [
        initialize("connect-agent"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": CHECK, "params": {}},
    ]
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env["EXOBRAIN_SEARCH_BACKGROUND"] = "0"  # nothing left running after the check
    try:
        done = subprocess.run(
            command,
            cwd=root,
            env=env,
            input="".join(json.dumps(r) + "\n" for r in requests),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=DEADLINE,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise _refusal(command, f"it could not be run ({exc})", "") from exc
    answers = _answers(done.stdout)
    init, check = answers.get(1, {}), answers.get(2, {})
    info = init.get("result", {}).get("serverInfo", {}) if isinstance(init, dict) else {}
    if info.get("name") != "exobrain":
        said = "it exited without answering" if done.returncode else "it did not answer"
        raise _refusal(command, f"{said} initialize (exit {done.returncode})", done.stderr)
    if "result" not in check:
        problem = check.get("error", {}).get("message", "no answer to the check of its imports")
        raise _refusal(command, str(problem), done.stderr)


def initialize(client: str, ident: int = 1) -> dict[str, Any]:
    """The ``initialize`` request a handshake-era client opens with (the benchmark and the
    start-up test send it too)."""
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


def _answers(stdout: str) -> dict[Any, dict[str, Any]]:
    """The answers the server wrote, by request id (lines that are not JSON are skipped)."""
    found: dict[Any, dict[str, Any]] = {}
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "id" in message:
            found[message["id"]] = message
    return found


def _refusal(command: list[str], problem: str, stderr: str) -> OperationFailed:
    python = command[0]
    log = stderr.strip().splitlines()[-6:]
    missing = _MISSING.findall(stderr + problem)
    if missing:
        why = f"{python} cannot import {missing[-1]}"
        fix = (
            f"install the toolkit into that Python: {python} -m pip install exobrain-skills "
            f"(in a clone of the toolkit: {python} -m pip install .), then run this again"
        )
    else:
        why = problem
        fix = (
            "the lines above are the server's own; reinstall the toolkit into that Python "
            f"({python} -m pip install --force-reinstall exobrain-skills) if they name a "
            "broken install, then run this again"
        )
    said = "".join(f"\n    {safe_line(line)}" for line in log)
    return OperationFailed(
        f"--mcp: the MCP server this would register does not start: {safe_line(why)}"
        + (f"; it said:{said}" if said else "")
        + f"\n  its command: {safe_line(' '.join(command))}",
        hint=fix,
    )
