"""Benchmark of issue 30 (item 7): skills-validate on registries of declarations whose folders
do not exist, at several sizes, to show that the time grows linearly with their number.

Every declaration without a folder is an error skills-validate reports with its entry; finding
that entry used to search the registry from the start each time, so 20,000 such declarations
took 18 s and 200,000 did not finish. Each size is written into the global skills.json of a
small exobrain (HOME, caches and git configuration in a temporary folder) and the installed
``skills-validate`` is timed on it (exit 1: the errors are the point). The last column, the
time per 1,000 declarations, stays about the same from size to size when the work is linear;
the target is 10 s at 200,000 (scaled down for smaller sizes). On a loaded machine the CPU
time is the steadier figure.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.security import big_registry, exobrain_at
from benchmarks.timing import bench_env, console_script, report, time_command

#: The issue's target: 200,000 declarations without folders validated in at most 10 s.
TARGET_SECONDS = 10.0
TARGET_SIZE = 200_000


def run(args) -> None:
    from exobrain.testkit import isolated_env

    validate = console_script("skills-validate")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**bench_env(), **isolated_env(base)}
        root = exobrain_at(base, env)
        for size in args.sizes:
            big_registry(root, size, broken=False)
            stats = time_command(
                [validate], root, args.runs, check_codes=(1,), warm_up=False, env=env
            )
            target = TARGET_SECONDS * max(size, 1) / TARGET_SIZE
            wall, cpu = (stats[key] * 1000 / max(size, 1) * 1000 for key in ("median", "cpu"))
            label = f"skills-validate, {size:,} declarations"
            print(f"{report(label, stats, target)}  per 1,000: {wall:.1f} ms, cpu {cpu:.1f} ms")


def sizes(text: str) -> list[int]:
    return [int(part.replace("_", "")) for part in text.split(",") if part.strip()]


def add_arguments(parser) -> None:
    parser.add_argument(
        "--sizes",
        type=sizes,
        default=[20_000, 200_000],
        help="Declarations without folders, comma-separated (default 20000,200000).",
    )
    parser.add_argument("--runs", type=int, default=3, help="Timed runs per size.")
