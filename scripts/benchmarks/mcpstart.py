"""The MCP server's start, timed as an agent meets it: spawn ``python -P -m exobrain.mcp``,
send ``initialize``, wait for the answer. Wall time to the answer and the CPU the server used
by then (its ``/proc`` counters, read at the answer), and the modules it imported to get
there (``-X importtime``, a run of its own).

With ``--against DIR`` (the ``scripts`` folder of another checkout, e.g. a ``git worktree
add /tmp/old a566220``) the same is measured for that code in the same run, the two
alternating start by start (which goes first changes each round), so the load of a shared
machine falls on both alike; that code runs with this Python (the old server needs the
``mcp`` package, which the test extra installs). ``--load N`` keeps N busy loops running
meanwhile (two on a 2-core machine: "loaded").
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.timing import bench_env
from exobrain.connect.mcpcheck import initialize

INITIALIZE = (json.dumps(initialize("benchmark")) + "\n").encode()


def _cpu(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _env(code: Path | None) -> dict[str, str]:
    env = {**bench_env(), "EXOBRAIN_SEARCH_BACKGROUND": "0"}
    env.pop("PYTHONPATH", None)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def start_once(
    code: Path | None, repo: Path, flags: tuple[str, ...] = ()
) -> tuple[float, float | None, str]:
    """(wall seconds to the initialize answer, the server's CPU seconds by then, its stderr)."""
    begin = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, *flags, "-m", "exobrain.mcp", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=repo,
        env=_env(code),
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.write(INITIALIZE)
    server.stdin.flush()
    line = server.stdout.readline()
    wall = time.perf_counter() - begin
    cpu = _cpu(server.pid)
    server.stdin.close()
    log = server.stderr.read().decode(errors="replace")
    server.wait()
    if b'"result"' not in line:
        raise SystemExit(f"no initialize answer: {line[:300]!r} {log[-500:]}")
    return wall, cpu, log


def modules(code: Path | None, repo: Path) -> int:
    """How many modules the server imported to answer initialize."""
    _wall, _cpu_used, log = start_once(code, repo, ("-X", "importtime", "-P"))
    return sum(1 for line in log.splitlines() if line.startswith("import time:")) - 1


@contextmanager
def load(busy: int) -> Iterator[None]:
    """``busy`` processes spinning on the CPU for the duration."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        time.sleep(1.0 if busy else 0)  # let the scheduler see them
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _ms(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:6.1f} ms "
        f"(min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"
    )


def run_start(runs: int, against: Path | None, busy: int) -> None:
    codes: dict[str, Path | None] = {"this code": None}
    if against is not None:
        codes[f"--against {against}"] = against
    with tempfile.TemporaryDirectory() as tmp, load(busy):
        repo = Path(tmp)
        print(
            f"MCP start to the initialize answer: {runs} paired runs, {busy} busy loop(s), "
            f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
        )
        counts = {label: modules(code, repo) for label, code in codes.items()}
        walls: dict[str, list[float]] = {label: [] for label in codes}
        cpus: dict[str, list[float]] = {label: [] for label in codes}
        order = list(codes.items())
        for number in range(runs):
            for label, code in order if number % 2 == 0 else reversed(order):
                wall, cpu, _log = start_once(code, repo, ("-P",))
                walls[label].append(wall)
                if cpu is not None:
                    cpus[label].append(cpu)
        for label in codes:
            cpu = f"; cpu {_ms(cpus[label])}" if cpus[label] else ""
            print(f"  {label:40} wall {_ms(walls[label])}{cpu}; {counts[label]} modules")
        if against is not None:
            mine, theirs = (statistics.median(walls[label]) for label in codes)
            print(f"  this code takes {mine / theirs:.2f}x the wall time of --against")
