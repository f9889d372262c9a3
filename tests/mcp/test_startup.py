"""What the MCP server imports before it answers ``initialize`` (issues 39 and 44): an agent
starts it on every session and waits for that answer, so nothing of search, the signals,
the catalog, rich, jsonschema, YAML or click is loaded by then — they load on the worker
when a tool first needs them. Counted with ``python -X importtime``, never timed
(``python scripts/benchmarks mcp`` times it)."""

from __future__ import annotations

import json
import subprocess
import sys

from exobrain.connect.mcpcheck import initialize

#: The toolkit's modules a server loads to answer initialize: the protocol, the tool table.
ALLOWED = {
    "exobrain",
    "exobrain.errors",
    "exobrain.util",
    "exobrain.util.boundedjson",
    "exobrain.mcp",
    "exobrain.mcp.arguments",
    "exobrain.mcp.protocol",
    "exobrain.mcp.resources",
    "exobrain.mcp.server",
    "exobrain.mcp.skills",
    "exobrain.mcp.tools",
    "exobrain.mcp.wire",
    "exobrain.mcp.worker",
}
#: Packages a tool call needs, never the handshake.
HEAVY = (
    "rich",
    "jsonschema",
    "yaml",
    "click",
    "sqlite3",
    "numpy",
    "markdown_it",
    "anyio",
    "pydantic",
    "mcp",
    "mcp_types",
    "dataclasses",
    "inspect",
)
#: All modules, the interpreter's own start included (about 26 for ``python -c pass``).
MOST = 120


def imported_before_initialize(tmp_path) -> list[str]:
    request = initialize("test")
    server = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-P", "-m", "exobrain.mcp", "--repo", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(request).encode() + b"\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    assert answer["result"]["serverInfo"]["name"] == "exobrain", answer
    server.stdin.close()  # nothing more asked: what it imported is what initialize took
    assert server.stderr is not None
    log = server.stderr.read()
    assert server.wait(timeout=600) == 0, log.decode()
    return [
        line.split("|")[-1].strip()
        for line in log.decode().splitlines()
        if line.startswith("import time:") and not line.rstrip().endswith("imported package")
    ]


def test_initialize_is_answered_before_the_toolkit_is_loaded(tmp_path):
    modules = imported_before_initialize(tmp_path)
    ours = {m for m in modules if m == "exobrain" or m.startswith("exobrain.")}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)
    heavy = [m for m in modules if m.split(".")[0] in HEAVY]
    assert not heavy, heavy
    assert len(modules) <= MOST, (len(modules), modules)
