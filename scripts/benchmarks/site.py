"""exobrain site: build time for 1,000 and 8,000 skills, the catalog page's weight, end to end.

Two measures. The builder alone (``build_site``) on synthetic site data calibrated on real
SKILL.md files (bodies of 2-4 KB, one in twenty 10-25 KB; a year of signals; 20 scopes): the
targets are 3 s for 1,000 skills and 30 s for 8,000, and at most 1 MB gzipped for everything
the catalog page loads at 1,000 skills. Then the installed ``exobrain site`` on a synthetic
exobrain (reading registries, SKILL.md files, locks, signals and git history, then building).
"""

from __future__ import annotations

import gzip
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.site_data import synthetic_data
from benchmarks.synthetic import Shape, generate
from benchmarks.timing import console_script, report, time_command

CATALOG_FILES = (
    "index.html",
    "search-index.js",
    "assets/site.css",
    "assets/search.js",
    "assets/catalog.js",
)
TARGETS = {1000: 3.0, 8000: 30.0}
WEIGHT_TARGET = 1 << 20


def add_arguments(parser) -> None:
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 8000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--repo-skills",
        type=int,
        default=1000,
        help="skills of the synthetic exobrain for the end-to-end run (0: skip it)",
    )


def _gzip_size(site: Path, names: tuple[str, ...]) -> tuple[int, int]:
    data = [(site / n).read_bytes() for n in names]
    return sum(map(len, data)), sum(len(gzip.compress(b, 9)) for b in data)


def run(args) -> None:
    from exobrain.site.build import build_site

    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            data = synthetic_data(n)
            times, cpu = [], []
            for _ in range(args.runs):
                start, before = time.perf_counter(), os.times()
                build_site(data, Path(tmp) / "site")
                after = os.times()
                times.append(time.perf_counter() - start)
                cpu.append(sum(after[:4]) - sum(before[:4]))
            stats = {
                "median": statistics.median(times),
                "min": min(times),
                "max": max(times),
                "runs": args.runs,
            }
            print(report(f"build_site, {n} skills", stats, TARGETS.get(n)))
            print(f"{'  CPU (all processes), median':42} {statistics.median(cpu):8.2f} s")
            raw, packed = _gzip_size(Path(tmp) / "site", CATALOG_FILES)
            verdict = ""
            if n == 1000:
                verdict = "  ok" if packed <= WEIGHT_TARGET else "  OVER target 1 MB"
            print(
                f"{'catalog page weight, ' + str(n) + ' skills':42} {packed / 1024:8.0f} KB "
                f"gzip -9 ({raw / 1024:.0f} KB raw){verdict}"
            )
        if args.repo_skills:
            _end_to_end(Path(tmp), args)


def _end_to_end(tmp: Path, args) -> None:
    groups = 20
    per_scope = args.repo_skills * 3 // 5 // groups
    shape = Shape(groups, 0, 0, per_scope, args.repo_skills - groups * per_scope)
    root = generate(tmp / "exobrain", shape)
    (root / ".exobrain.json").unlink(missing_ok=True)  # it names a person; the site needs none
    print(f"synthetic exobrain: {shape.total_skills} skills in global and {groups} groups")
    argv = [console_script("exobrain"), "site", "-o", str(tmp / "e2e")]
    print(
        report(f"exobrain site, {shape.total_skills} skills", time_command(argv, root, args.runs))
    )
