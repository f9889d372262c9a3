"""Issue 21's end-to-end run: connect Claude with ``--mcp``, start the server exactly as the
entry connect-agent wrote tells Claude to, discover a skill for a task through MCP, record its
use, and find that use in ``exobrain quality`` and ``exobrain events``."""

from __future__ import annotations

import json
import os

import anyio
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.umbrella import main as exobrain_cmd
from exobrain.connect.mcpconfig import config_file
from tests.search.test_substrate import SKILLS
from tests.support.helpers import exobrain, git

TASK = "dock a ligand into a protein pocket"


def test_claude_connected_with_mcp_discovers_records_and_the_use_shows_everywhere(tmp_path):
    entries = [{"name": n, "owner": "ops", "tier": "optional", "force": True} for n in SKILLS]
    root = exobrain(
        tmp_path / "repo",
        {"global": entries},
        scopes=["people/al"],
        skills={f"global/{n}": text for n, text in SKILLS.items()},
    )
    done = CliRunner().invoke(
        connect_cmd, ["claude", "--person", "al", "--mcp", "--repo", str(root)]
    )
    assert done.exit_code == 0, done.output
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "connected")
    start = git(root, "rev-parse", "HEAD").strip()

    path, _ = config_file("claude", root, False)  # Claude's local scope: no approval prompt
    entry = json.loads(path.read_text())["projects"][str(root)]["mcpServers"]["exobrain"]
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**os.environ, **entry.get("env", {}), "EXOBRAIN_SEARCH_BACKGROUND": "0"},
        cwd=str(root),
    )

    async def session_run() -> tuple[dict, dict]:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                picked = await session.call_tool("discover", {"task": TASK})
                ref = picked.structured_content["skills"][0]["ref"]
                used = await session.call_tool("signal", {"kind": "usage", "ref": ref})
                return picked.structured_content, used.structured_content

    picked, used = anyio.run(session_run)
    ref = picked["skills"][0]["ref"]
    assert ref == "skill:dock-ligands@global"
    assert used["skill"] == ref

    quality = CliRunner().invoke(exobrain_cmd, ["quality", ref, "--json", "--repo", str(root)])
    assert quality.exit_code == 0, quality.output
    scored = json.loads(quality.output)
    assert scored["evidence"]["usage"]["uses"] == 1 and scored["components"]["usage"] > 0

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a use")
    events = CliRunner().invoke(
        exobrain_cmd, ["events", "--since", start, "--json", "--repo", str(root)]
    )
    assert events.exit_code == 0, events.output
    invoked = [e for e in json.loads(events.output)["events"] if e["type"] == "skill.invoked"]
    assert [e["ref"] for e in invoked] == [ref]
    assert invoked[0]["agent"] == "claude"
