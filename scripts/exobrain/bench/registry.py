"""Benchmark of issue 2: skills-status, skills-status --all and skills-validate at scale."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .synthetic import Shape, generate
from .timing import console_script, report, time_command


def run(args) -> None:
    shape = Shape(args.groups, args.people, args.hosts, args.per_scope, args.global_skills)
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
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--per-scope", type=int, default=5)
    parser.add_argument("--global-skills", type=int, default=400)
    parser.add_argument("--runs", type=int, default=21)
