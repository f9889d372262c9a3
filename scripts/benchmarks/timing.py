"""Timing helpers: run a real command several times and report wall-clock statistics, with
the CPU seconds the command and its git subprocesses used (on a shared machine the wall
time swings with the load; the CPU time does not)."""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path


def console_script(name: str) -> str:
    """The installed console script's path (benchmarks time what users run)."""
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"{name} is not installed: run pip install -e . first")
    return path


def bench_env() -> dict[str, str]:
    """The environment users have: bytecode caching on (sandboxes often turn it off)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_command(
    argv: list[str],
    cwd: Path,
    runs: int,
    *,
    check_codes=(0,),
    warm_up: bool = True,
    env: dict[str, str] | None = None,
) -> dict:
    """One warm-up run (unless the first run is what is measured), then ``runs`` timed runs;
    return median/min/max wall seconds and the median CPU seconds. ``env`` (default: the
    user's, :func:`bench_env`) lets a benchmark keep HOME and the caches in its own folder."""
    env = bench_env() if env is None else env
    if warm_up:
        subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples, cpu = [], []
    for _ in range(runs):
        used = children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        samples.append(time.perf_counter() - start)
        cpu.append(children_cpu() - used)
        if done.returncode not in check_codes:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "cpu": statistics.median(cpu),
        "runs": runs,
    }


def children_cpu() -> float:
    """User and system CPU seconds of every finished child process so far (with the
    processes they waited for: git)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(label: str, stats: dict, target: float | None = None) -> str:
    verdict = ""
    if target is not None:
        verdict = "  ok" if stats["median"] <= target else f"  OVER target {target:.3f}s"
    cpu = f" cpu {stats['cpu'] * 1000:.1f} ms" if "cpu" in stats else ""
    return (
        f"{label:42} median {stats['median'] * 1000:8.1f} ms  "
        f"(min {stats['min'] * 1000:.1f}, max {stats['max'] * 1000:.1f}, "
        f"{stats['runs']} runs){cpu}{verdict}"
    )
