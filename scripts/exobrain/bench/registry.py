"""Benchmark of issue 2: skills-status, skills-status --all and skills-validate at scale."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .synthetic import add_shape_arguments, generate, shape_from
from .timing import console_script, report, time_command


def run(args) -> None:
    shape = shape_from(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        print(f"synthetic exobrain: {shape.total_skills} skills, {shape.groups} groups, "
              f"{shape.people} people x {shape.hosts} hosts")
        status, validate = console_script("skills-status"), console_script("skills-validate")
        cases = [("skills-status", [status], args.runs, 0.100),
                 ("skills-status --all", [status, "--all"], max(3, args.runs // 4), 1.0),
                 ("skills-validate", [validate], max(3, args.runs // 4), 3.0)]
        for label, argv, runs, target in cases:
            print(report(label, time_command(argv, root, runs), target))


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=21)
