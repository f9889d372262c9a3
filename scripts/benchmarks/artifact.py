"""Benchmark of issue 8: hashing and lock checking over the synthetic exobrain."""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.synthetic import add_shape_arguments, generate, shape_from
from benchmarks.timing import console_script, report, time_command


def run(args) -> None:
    shape = shape_from(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        print(f"synthetic exobrain: {shape.total_skills} skills")
        exobrain = console_script("exobrain")
        first = time_command([exobrain, "lock"], root, 1, warm_up=False)
        print(report("exobrain lock (first run: writes 1,521 locks)", first))
        print(
            report(
                "exobrain lock --check (hash + compare)",
                time_command([exobrain, "lock", "--check"], root, args.runs),
                3.0,
            )
        )
        print(
            report(
                "skills-validate (with version_bumped)",
                time_command(
                    [console_script("skills-validate")], root, args.runs, check_codes=(0, 1)
                ),
                3.0,
            )
        )


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=5)
