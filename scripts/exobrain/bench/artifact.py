"""Benchmark of issue 8: hashing and lock checking over the synthetic exobrain."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .synthetic import Shape, generate
from .timing import console_script, report, time_command


def run(args) -> None:
    shape = Shape(args.groups, args.people, args.hosts, args.per_scope, args.global_skills)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        print(f"synthetic exobrain: {shape.total_skills} skills")
        exobrain = console_script("exobrain")
        first = time_command([exobrain, "lock"], root, 1, warm_up=False)
        print(report("exobrain lock (hash + write every lock)", first, 3.0))
        print(report("exobrain lock --check (hash + compare)",
                     time_command([exobrain, "lock", "--check"], root, args.runs), 3.0))
        print(report("skills-validate (with version_bumped)",
                     time_command([console_script("skills-validate")], root, args.runs,
                                  check_codes=(0, 1)), 3.0))


def add_arguments(parser) -> None:
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--per-scope", type=int, default=5)
    parser.add_argument("--global-skills", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
