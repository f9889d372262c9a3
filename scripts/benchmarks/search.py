"""Benchmark of issue 11: search index build, incremental update and query latency.

Targets (semantic half on): cold build of the whole index ≤ 5 s, incremental update after
one edit ≤ 0.3 s, query ≤ 50 ms median excluding interpreter start. Wall and CPU time are
both reported (the machines these run on are often shared). ``--flat`` puts every skill in
the global scope, so a query ranks all of them (the worst case for visibility).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from benchmarks.synthetic import Shape, add_shape_arguments, generate, shape_from
from benchmarks.timing import bench_env, console_script, report, time_command

QUERIES = (
    "topic 17 step by step",
    "how do I handle the global topic",
    "group skill covers",
    "deploy a service to production",
    "user asks about person topic 3",
    "summarise what changed",
    "fit a drug into an enzyme pocket",
)

_COLD = """
import json, sys, time
from pathlib import Path
start, cpu = time.perf_counter(), time.process_time()
from exobrain.search.engine import build_index
from exobrain.workspace import open_workspace
update = build_index(open_workspace(Path(sys.argv[1])))
print(json.dumps({"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                  "indexed": len(update.reindexed), "embedded": update.embedded}))
"""


def _timed(func):
    start, cpu = time.perf_counter(), time.process_time()
    value = func()
    return value, time.perf_counter() - start, time.process_time() - cpu


def _line(label: str, wall: float, cpu: float, target: float | None = None) -> str:
    verdict = "" if target is None else ("  ok" if wall <= target else f"  OVER {target:g}s")
    return f"{label:42} wall {wall * 1000:8.1f} ms  cpu {cpu * 1000:8.1f} ms{verdict}"


def run(args) -> None:
    shape = (
        Shape(groups=0, people=0, hosts=0, per_scope=0, global_skills=shape_from(args).total_skills)
        if args.flat
        else shape_from(args)
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        if not args.flat:  # a person with a host and two groups, like a real connection
            (root / ".exobrain.json").write_text(
                json.dumps(
                    {
                        "connected_scopes": ["groups/g000", "groups/g001", "people/p0000/hosts/h0"],
                        "person": "p0000",
                    }
                ),
                encoding="utf-8",
            )
        _ledger(root, shape, args.signals)
        print(
            f"synthetic exobrain: {shape.total_skills} skills"
            + (" all in global" if args.flat else ", connected as p0000 (2 groups, a host)")
            + f", {args.signals} signal lines"
        )
        cold = json.loads(
            subprocess.run(
                [sys.executable, "-c", _COLD, str(root)],
                check=True,
                capture_output=True,
                text=True,
                env=bench_env(),
            ).stdout
        )
        print(
            _line(
                f"cold build ({cold['indexed']} indexed, {cold['embedded']} embedded)",
                cold["wall"],
                cold["cpu"],
                5.0,
            )
            + "  (fresh process, model load included)"
        )

        from exobrain.search.engine import build_index
        from exobrain.workspace import open_workspace

        edited = root / "skills" / "global-skill-0007" / "SKILL.md"
        samples = []
        for round_ in range(args.edits):
            text = edited.read_text(encoding="utf-8")
            edited.write_text(
                text + f"\nEdit {round_}: mention kubernetes rollouts.\n", encoding="utf-8"
            )
            update, wall, cpu = _timed(lambda: build_index(open_workspace(root)))
            assert update.reindexed == ["skill:global-skill-0007@global"], update.reindexed
            samples.append((wall, cpu))
        print(
            _line(
                f"incremental, one edit (median of {args.edits})",
                statistics.median(s[0] for s in samples),
                statistics.median(s[1] for s in samples),
                0.3,
            )
        )
        edited.write_text(edited.read_text(encoding="utf-8") + "\nOne more edit.\n", "utf-8")
        result, wall, cpu = _timed(lambda: _query(root, "kubernetes rollouts"))
        assert result.update.reindexed == ["skill:global-skill-0007@global"]
        print(_line("query right after an edit (re-indexes it)", wall, cpu))

        for label, everywhere in (("query, default view", False), ("query, --all-scopes", True)):
            from exobrain.search.engine import Filters

            filters = Filters(everywhere=everywhere)
            _query(root, "warm up", filters)
            timings = []
            for _ in range(args.runs):
                for query in QUERIES:
                    result, wall, cpu = _timed(partial(_query, root, query, filters))
                    assert result.mode == "hybrid", result.mode
                    timings.append((wall, cpu))
            print(
                _line(
                    f"{label} ({result.considered} visible, median)",
                    statistics.median(t[0] for t in timings),
                    statistics.median(t[1] for t in timings),
                    0.050,
                )
            )

        exobrain = console_script("exobrain")
        start = time_command([sys.executable, "-c", "pass"], root, args.runs)
        print(report("interpreter start (python -c pass)", start))
        whole = time_command([exobrain, "search", "deploy a service"], root, args.runs)
        print(report("exobrain search (whole command)", whole))
        print(
            f"{'  whole command minus interpreter start':42} median "
            f"{(whole['median'] - start['median']) * 1000:8.1f} ms"
        )


def _query(root: Path, text: str, filters=None):
    """What ``exobrain search`` does in-process: open, refresh, rank with signal quality."""
    from exobrain.search.engine import Filters, search, signal_quality
    from exobrain.workspace import open_workspace

    ws = open_workspace(root)
    return search(ws, text, filters or Filters(), quality=signal_quality(ws))


def _ledger(root: Path, shape: Shape, count: int) -> None:
    """``count`` votes and uses on global skills from 50 people, committed."""
    from exobrain.signals.ledger import dump_line, make_signal

    lines = []
    for i in range(count):
        ref = f"skill:global-skill-{i * 7 % max(shape.global_skills, 1):04d}@global"
        kind = "vote" if i % 2 else "usage"
        lines.append(
            dump_line(make_signal(kind, ref, 1, by=f"p{i % 50:04d}", host="h0", at=1.7e9 + i * 60))
        )
    folder = root / "signals" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "h0.jsonl").write_text("".join(lines), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
            "commit",
            "-q",
            "-m",
            "signals",
        ],
        cwd=root,
        check=True,
    )


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=5)
    parser.add_argument("--edits", type=int, default=5, help="Incremental updates to time.")
    parser.add_argument("--signals", type=int, default=5000, help="Signal lines in the ledger.")
    parser.add_argument(
        "--flat",
        action="store_true",
        help="Every skill in the global scope (all visible to every query).",
    )
