"""Benchmark of the MCP server: start to first answer, and search calls on a large exobrain.

On a synthetic exobrain whose skills are all in the global scope (default 8,000, so every
search ranks all of them), with its search index and vectors built first (``exobrain index``,
the one-time embedding, not timed here: ``python scripts/benchmarks search`` times it):

0. the start alone (:mod:`benchmarks.mcpstart`): spawn to the ``initialize`` answer, wall and
   CPU, and the modules imported by then, paired with another checkout's server
   (``--against``), optionally under load (``--load 2``); targets ≤ 0.3 s quiet, ≤ 1 s
   loaded; ``--start-only`` stops there;
1. the imports, each in a fresh interpreter: nothing, and ``exobrain.mcp.server`` (all a
   server imports before its first answer);
2. start to first answer: spawn ``python -m exobrain.mcp`` over stdio with the ``mcp``
   package's own client (the reference client; the server itself needs no such package)
   and time until ``initialize`` is answered, then until the first ``search`` call is
   answered, asked right after ``tools/list`` as agents do (the toolkit, the index and the
   encoders load; ``tools/list`` starts loading them);
3. search calls in a started server (target ≤ 100 ms median): the workspace and the index
   stay open between calls (:mod:`exobrain.search.live`), so a call ranks, and asks each
   visible SKILL.md again only after a change (on Linux a folder watch tells; elsewhere
   every call asks them);
4. a search call whose query is 5 MB, sent and answered (target ≤ 100 ms: refused at once,
   over the 1,000-character cap of :mod:`exobrain.mcp.arguments`, never queued behind the
   one worker), then a normal search again, to show the worker was never held;
5. the Skills extension (SEP-2640) in the same started server: ``skills/list`` (an entry per
   listed skill: its frontmatter read and every file of it hashed, at each call) and
   ``skills/get`` of one skill.

Wall time (CPU beside it for the start); the machines these run on are often shared, so
quote the load average.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.mcpstart import run_start
from benchmarks.search import QUERIES
from benchmarks.synthetic import Shape, generate
from benchmarks.timing import bench_env, console_script

IMPORTS = (
    ("interpreter start (pass)", "pass"),
    ("import exobrain.mcp.server (all of start-up)", "import exobrain.mcp.server"),
)


def _stats(samples: list[float]) -> str:
    return (
        f"median {statistics.median(samples) * 1000:7.1f} ms  "
        f"(min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f}, {len(samples)} runs)"
    )


def _verdict(samples: list[float], target: float) -> str:
    return "  ok" if statistics.median(samples) <= target else f"  OVER {target * 1000:g} ms"


def _imports(runs: int) -> None:
    env = bench_env()
    for label, statement in IMPORTS:
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", statement], env=env, check=True)
            samples.append(time.perf_counter() - start)
        print(f"{label:48} {_stats(samples)}")


def _skills_requests() -> tuple[Any, Any, Any]:
    """The extension's two requests as the ``mcp`` package sends them, and a result reader."""
    from typing import Literal

    import mcp_types as types
    from pydantic import TypeAdapter

    class Params(types.RequestParams):
        uri: str | None = None

    class ListSkills(types.Request[Params, Literal["skills/list"]]):
        method: Literal["skills/list"] = "skills/list"
        params: Params

    class GetSkill(types.Request[Params, Literal["skills/get"]]):
        method: Literal["skills/get"] = "skills/get"
        params: Params

    return (
        lambda: ListSkills(params=Params()),
        lambda uri: GetSkill(params=Params(uri=uri)),
        TypeAdapter(dict[str, Any]),
    )


async def _skills(session: Any, calls: int) -> tuple[list[float], list[float], int]:
    """(skills/list calls, skills/get calls, entries listed) in a started server."""
    list_request, get_request, answer = _skills_requests()
    listed, got, entries = [], [], []
    for _ in range(calls):
        begin = time.perf_counter()
        entries = (await session.send_request(list_request(), answer))["skills"]
        listed.append(time.perf_counter() - begin)
    for number in range(calls if entries else 0):
        begin = time.perf_counter()
        await session.send_request(get_request(entries[number % len(entries)]["uri"]), answer)
        got.append(time.perf_counter() - begin)
    return listed, got, len(entries)


async def _session(root: Path, calls: int) -> tuple[Any, ...]:
    """(spawn → initialize answered, spawn → first search answered, later search calls, what
    the search ranked, the 5 MB query and the call after it, the skills extension's calls)."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-P", "-m", "exobrain.mcp", "--repo", str(root)],
        env={**bench_env(), "EXOBRAIN_SEARCH_BACKGROUND": "0"},
        cwd=str(root),
    )
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        initialised = time.perf_counter() - start
        await session.list_tools()  # what agents ask next (it starts the warm-up)
        first = await session.call_tool("search", {"query": QUERIES[0]})
        first_answer = time.perf_counter() - start
        if first.is_error:
            raise SystemExit(f"search failed: {first.content}")
        ranked = (
            f"{first.structured_content['considered']} visible skills, "
            f"{first.structured_content['mode']}"
        )
        later = []
        for number in range(calls):
            query = QUERIES[number % len(QUERIES)]
            begin = time.perf_counter()
            await session.call_tool("search", {"query": query})
            later.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        refused = await session.call_tool("search", {"query": "x" * 5_000_000})
        hostile = [time.perf_counter() - begin]
        if not refused.is_error:
            raise SystemExit("a 5 MB query was not refused")
        begin = time.perf_counter()
        await session.call_tool("search", {"query": QUERIES[0]})
        hostile.append(time.perf_counter() - begin)
        extension = await _skills(session, max(1, calls // 4))
    return initialised, first_answer, later, ranked, hostile, extension


def run(args) -> None:
    run_start(args.runs, args.against, args.load)
    if args.start_only:
        return
    import anyio

    exobrain = console_script("exobrain")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    _imports(args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", Shape(0, 0, 0, 0, args.skills))
        (root / ".exobrain.json").unlink(missing_ok=True)  # a guest: it sees every skill
        print(f"synthetic exobrain: {args.skills} skills, all in global; building the index…")
        start = time.perf_counter()
        done = subprocess.run(
            [exobrain, "index", "--json"],
            cwd=root,
            env=bench_env(),
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise SystemExit(f"exobrain index failed: {done.stderr}")
        embedded = json.loads(done.stdout).get("embedded")
        print(f"index built in {time.perf_counter() - start:.1f} s (embedded {embedded})")
        starts, firsts, later, refused, after, listed, got = [], [], [], [], [], [], []
        for _ in range(args.runs):
            initialised, first, calls, ranked, hostile, extension = anyio.run(
                _session, root, args.calls
            )
            starts.append(initialised)
            firsts.append(first)
            later += calls
            refused.append(hostile[0])
            after.append(hostile[1])
            listed += extension[0]
            got += extension[1]
        print(f"search ranks {ranked}")
        print(f"{'start → initialize answered':48} {_stats(starts)}{_verdict(starts, 0.5)}")
        print(f"{'start → first search answered':48} {_stats(firsts)}")
        print(f"{'search call in a started server':48} {_stats(later)}{_verdict(later, 0.1)}")
        print(f"{'a 5 MB query, refused':48} {_stats(refused)}{_verdict(refused, 0.1)}")
        print(f"{'the next search call':48} {_stats(after)}{_verdict(after, 0.1)}")
        print(f"{f'skills/list ({extension[2]} entries)':48} {_stats(listed)}")
        if got:
            print(f"{'skills/get of one skill':48} {_stats(got)}")


def add_arguments(parser) -> None:
    parser.add_argument("--skills", type=int, default=8000, help="Skills, all in global.")
    parser.add_argument("--runs", type=int, default=10, help="Server starts (and imports).")
    parser.add_argument("--calls", type=int, default=14, help="Search calls per server.")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="SCRIPTS",
        help="Time the start of another checkout's server too (its scripts folder), paired.",
    )
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="Busy loops running while starts are timed.",
    )
    parser.add_argument(
        "--start-only", action="store_true", help="Only the start (no index, no search calls)."
    )
