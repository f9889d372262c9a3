"""Benchmark of issue 7: create-instance, harvest over many instances, selftest.

Renders ``--instances`` instances of the seed (``--seed``, default: the repository around the
current folder) with the real console script, timing each; gives every instance a change of its
own (a new person skill, an edited framework file, a new script, or nothing); then times
``exobrain harvest`` over all of them from a scratch seed, and ``exobrain selftest --no-suite``
and the default ``exobrain selftest`` (with the quick part of the suite: issue 32 asks for at
most a minute) in one instance with claude connected. The instances live in a temporary
folder; the instance's environment must hold the [test] extra for the default selftest.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.timing import bench_env, console_script, report, time_command

TARGETS = {"create": 2.0, "harvest": 3.0, "selftest": 3.0, "selftest-quick": 60.0}


def add_arguments(parser) -> None:
    parser.add_argument(
        "--seed",
        type=Path,
        default=None,
        help="the seed to render from (default: the repository around you)",
    )
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _change(root: Path, index: int) -> None:
    """Give instance ``index`` something for harvest to find (every fourth: nothing)."""
    kind = index % 4
    if kind == 0:
        folder = root / "people" / "p" / "skills" / f"idea-{index}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: idea-{index}\ndescription: Use it when "
            f"the user asks for idea {index}.\n---\nDo it.\n"
        )
    elif kind == 1:
        with open(root / "knowledge" / "exobrain" / "skills.md", "a") as handle:
            handle.write(f"\nA local note {index}.\n")
    elif kind == 2:
        (root / "scripts" / f"local-{index}.sh").write_text("#!/bin/sh\necho local\n")
    else:
        return
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", f"change {index}")


def run(args) -> None:
    from exobrain.scopes import find_root

    seed = (args.seed or find_root()).resolve()
    exobrain = console_script("exobrain")
    env = bench_env()
    with tempfile.TemporaryDirectory(prefix="bench-instance-") as tmp:
        base = Path(tmp)
        create_times = []
        for index in range(args.instances):
            target = base / f"inst-{index}"
            start = time.perf_counter()
            done = subprocess.run(
                [
                    exobrain,
                    "create-instance",
                    str(target),
                    "--person",
                    "p",
                    "--host",
                    "h",
                    "--repo",
                    str(seed),
                ],
                env=env,
                capture_output=True,
                text=True,
            )
            create_times.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"create-instance failed: {done.stderr[-500:]}")
            _change(target, index)
        stats = {
            "median": statistics.median(create_times),
            "min": min(create_times),
            "max": max(create_times),
            "runs": len(create_times),
        }
        files = len(
            subprocess.run(
                ["git", "ls-files"], cwd=base / "inst-0", text=True, capture_output=True
            ).stdout.splitlines()
        )
        print(f"seed {seed}; each instance holds {files} files")
        print(report("exobrain create-instance", stats, TARGETS["create"]))
        scratch = base / "seed"
        shutil.copytree(base / "inst-0", scratch, symlinks=True)
        (scratch / "seed").mkdir()
        (scratch / "seed" / "AGENTS.md").write_text("# seed\n")
        (scratch / ".exobrain.json").write_text(
            json.dumps({"instances": [f"../inst-{i}" for i in range(args.instances)]})
        )
        stats = time_command(
            [exobrain, "harvest", "--repo", str(scratch)], scratch, args.runs, check_codes=(0,)
        )
        print(report(f"exobrain harvest ({args.instances} instances)", stats, TARGETS["harvest"]))
        inst = base / "inst-3"
        subprocess.run(
            [
                console_script("connect-agent"),
                "claude",
                "--person",
                "p",
                "--host",
                "h",
                "--repo",
                str(inst),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        stats = time_command(
            [exobrain, "selftest", "--no-suite", "--repo", str(inst)], inst, args.runs
        )
        print(report("exobrain selftest --no-suite", stats, TARGETS["selftest"]))
        stats = time_command([exobrain, "selftest", "--repo", str(inst)], inst, 1, warm_up=False)
        print(report("exobrain selftest (quick suite)", stats, TARGETS["selftest-quick"]))
