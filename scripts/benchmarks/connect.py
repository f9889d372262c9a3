"""Benchmark of issue 3: connect-agent claude from scratch and a no-op --relink at scale."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path

from benchmarks.synthetic import add_shape_arguments, synthetic_repo
from benchmarks.timing import bench_env, console_script, report, time_command

GENERATED_HOOKS = ("post-merge", "post-rewrite", "pre-push")


def _reset(root: Path, connection: str) -> None:
    """Back to a never-connected clone: no agent folder, no hooks, the original connection."""
    shutil.rmtree(root / ".claude", ignore_errors=True)
    for hook in GENERATED_HOOKS:
        (root / ".git/hooks" / hook).unlink(missing_ok=True)
    (root / ".exobrain.json").write_text(connection, encoding="utf-8")


def _time_from_scratch(argv: list[str], root: Path, runs: int) -> dict:
    env = bench_env()
    connection = (root / ".exobrain.json").read_text(encoding="utf-8")
    samples = []
    for index in range(runs + 1):  # the first run warms the caches and is not counted
        _reset(root, connection)
        start = time.perf_counter()
        done = subprocess.run(
            argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")
        if index:
            samples.append(elapsed)
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "runs": runs,
    }


def run(args) -> None:
    with synthetic_repo(args) as (root, _):
        connect = console_script("connect-agent")
        scratch = _time_from_scratch([connect, "claude"], root, args.runs)
        linked = sum(1 for p in (root / ".claude/skills").iterdir() if p.is_symlink())
        print(f"links made: {linked}")
        print(report("connect-agent claude (from scratch)", scratch, 0.300))
        noop = time_command([connect, "claude", "--relink"], root, args.runs)
        print(report("connect-agent claude --relink (no-op)", noop, 0.200))


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=21)
