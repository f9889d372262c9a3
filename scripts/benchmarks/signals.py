"""Benchmark of issue 10: aggregating signal ledgers (cold and cached), quality, usage hook.

Generates the synthetic exobrain (8,000 skills by default) and ledgers of N lines spread over
its people and hosts, then times: aggregation from scratch, a cached re-read, ``exobrain
quality --json`` end to end, and the Claude usage hook fed a recorded payload.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import Shape, generate
from benchmarks.timing import bench_env, console_script, report, time_command

DAY = 86400.0
#: forced in the synthetic exobrain, so it reaches the connected person p0000
HOOK_SKILL = "global-skill-0004"


def skill_refs(root: Path) -> list[str]:
    """Every declaration of the synthetic exobrain as a canonical ref."""
    from exobrain.refs import canonical
    from exobrain.workspace import open_workspace

    ws = open_workspace(root)
    return [canonical(e) for r in ws.all_registries() for e in r.entries if not e.is_override]


def write_ledgers(
    root: Path,
    refs: list[str],
    lines: int,
    people: int,
    hosts: int,
    now: float,
    days: int = 365,
    seed: int = 10,
) -> int:
    """Write ``lines`` ledger lines (70% usage, 10% votes, 10% ranks, 7% calibration, 3% fund)
    in the exact format ``exobrain signal`` writes; returns the number of files."""
    from exobrain.signals.ledger import DIMENSIONS
    from exobrain.signals.timestamps import format_ts

    rng = random.Random(seed)
    per_file = max(1, lines // (people * hosts))
    files = 0
    written = 0
    for p in range(people):
        person = f"p{p:04d}"
        folder = root / "signals" / person
        folder.mkdir(parents=True, exist_ok=True)
        for h in range(hosts):
            count = per_file if (p, h) != (people - 1, hosts - 1) else lines - written
            stamps = sorted(now - rng.random() * days * DAY for _ in range(count))
            out = []
            for stamp in stamps:
                ts, ref, pick = format_ts(stamp), rng.choice(refs), rng.random()
                tail = f'"by":"{person}","host":"h{h}","agent":"claude"}}'
                if pick < 0.70:
                    body = '"kind":"usage","value":1,"auto":true,'
                elif pick < 0.80:
                    body = f'"kind":"vote","value":{rng.choice((1, -1))},'
                elif pick < 0.90:
                    body = (
                        f'"kind":"rank","value":{rng.randint(0, 10) / 10},'
                        f'"dimension":"{rng.choice(DIMENSIONS)}",'
                    )
                elif pick < 0.97:
                    body = f'"kind":"calibration","value":{rng.choice(("true", "false"))},'
                else:
                    body = f'"kind":"fund","value":{rng.randint(1, 500)},"currency":"token",'
                out.append(f'{{"ts":"{ts}","skill":"{ref}",{body}{tail}\n')
            (folder / f"h{h}.jsonl").write_text("".join(out), encoding="utf-8")
            files += 1
            written += count
    return files


def _time(func, runs: int) -> dict:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "runs": runs,
    }


def _hook_payload(root: Path) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Skill",
            "tool_input": {"skill": HOOK_SKILL},
            "tool_response": {"success": True, "commandName": HOOK_SKILL},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def machine_note() -> str:
    """How fast this machine runs Python right now, so the figures can be compared."""
    import os

    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    loop = time.perf_counter() - start
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (
        f"machine: a 10M-step Python loop takes {loop:.2f} s here (about 0.4 s on an idle "
        f"recent laptop); load average {load} on {os.cpu_count()} CPU(s)"
    )


def run(args) -> None:
    from exobrain.signals.aggregate import aggregate
    from exobrain.signals.cache import cache_path
    from exobrain.workspace import open_workspace

    shape = Shape(args.groups, args.people, args.hosts, args.per_scope, args.global_skills)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        refs = skill_refs(root)
        now = time.time()
        files = write_ledgers(root, refs, args.lines, shape.people, max(shape.hosts, 1), now)
        print(
            f"synthetic exobrain: {len(refs)} skills; {args.lines} signal lines in {files} "
            f"ledger files"
        )
        print(machine_note())
        ws = open_workspace(root)  # (its people are found anew by every aggregate below)
        agg = aggregate(ws, use_cache=False)
        print(
            f"aggregated: {agg.lines} lines, {len(agg.skills())} skills, "
            f"{len(agg.problems)} problems"
        )
        print(
            report(
                "aggregate (cold, no cache)",
                _time(lambda: aggregate(ws, use_cache=False), args.runs),
                5.0,
            )
        )

        def cold_then_cache() -> None:
            cache_path(root).unlink(missing_ok=True)
            aggregate(ws)

        print(report("aggregate (cold, writing the cache)", _time(cold_then_cache, 1), 5.0))
        print(report("aggregate (cached re-read)", _time(lambda: aggregate(ws), args.runs), 0.3))
        exo = console_script("exobrain")
        print(
            report(
                "exobrain quality --json (cached)",
                time_command([exo, "quality", "--json"], root, max(3, args.runs)),
                None,
            )
        )
        print(
            report(
                "exobrain quality REF (cached)",
                time_command([exo, "quality", refs[0]], root, max(3, args.runs)),
                None,
            )
        )
        _bench_hook(root, args.runs * 3)
        print(machine_note())


def _bench_hook(root: Path, runs: int) -> None:
    from exobrain.signals.ledger import ledger_files

    argv = [sys.executable, "-P", "-m", "exobrain.signals.usage_hook", "--repo", str(root)]
    payload = _hook_payload(root)
    env = bench_env()
    before = sum(p.read_text().count("\n") for p in ledger_files(root))
    samples = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(argv, input=payload, env=env, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    samples = samples[1:]
    added = sum(p.read_text().count("\n") for p in ledger_files(root)) - before
    if added != runs + 1:
        raise SystemExit(f"the hook appended {added} lines for {runs + 1} calls")
    stats = {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "runs": runs,
    }
    print(report("claude usage hook (whole process)", stats, 0.100))
    bare = [sys.executable, "-c", "pass"]
    print(report("  python startup alone, for reference", time_command(bare, root, runs), None))


def add_arguments(parser) -> None:
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--per-scope", type=int, default=5)
    parser.add_argument("--global-skills", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
