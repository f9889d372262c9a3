"""Benchmark of issue 2: skills-status, skills-status --all and skills-validate at scale."""

from __future__ import annotations

from benchmarks.synthetic import add_shape_arguments, synthetic_repo
from benchmarks.timing import console_script, report, time_command


def run(args) -> None:
    with synthetic_repo(args) as (root, _):
        status, validate = console_script("skills-status"), console_script("skills-validate")
        cases = [
            ("skills-status", [status], args.runs, 0.100),
            ("skills-status --all", [status, "--all"], max(3, args.runs // 4), 1.0),
            ("skills-validate", [validate], max(3, args.runs // 4), 3.0),
        ]
        for label, argv, runs, target in cases:
            print(report(label, time_command(argv, root, runs), target))


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=21)
