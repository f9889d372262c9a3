"""Benchmark of issue 6: authoring-review on a large exobrain with a busy feature branch.

The repository has groups, people and global skills (each a SKILL.md plus two siblings) on
``main``; the feature branch adds new shared skills (half with proof), renames global skills,
moves person skills into groups and changes lifecycles. authoring-review runs as a pre-commit
hook on every commit, so it should answer well under a second there.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 1.0


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _skill(folder: Path, name: str) -> None:
    _write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: Use {name} for "
                                       f"{name.replace('-', ' ')}.\n---\nSteps for {name}.\n")
    _write(folder / name / "reference.md", f"# {name}\n" + f"Background on {name}.\n" * 20)
    _write(folder / name / "run.sh", f"#!/bin/sh\necho {name}\n")


def _registry(folder: Path, entries: list[dict]) -> None:
    _write(folder / "skills.json", json.dumps({"skills": entries}, indent=2) + "\n")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def generate(root: Path, groups: int, people: int, per_scope: int, global_skills: int) -> None:
    """The base on main, then the feature branch's changes left staged (as under pre-commit)."""
    entries = []
    for k in range(global_skills):
        _skill(root / "skills", f"global-{k:04d}")
        entries.append({"name": f"global-{k:04d}", "owner": "team", "tier": "optional"})
    _registry(root, entries)
    for g in range(groups):
        scope = root / "groups" / f"g{g:03d}"
        _write(scope / "AGENTS.md", f"# group {g}\n")
        for k in range(per_scope):
            _skill(scope / "skills", f"g{g:03d}-skill-{k}")
        _registry(scope, [{"name": f"g{g:03d}-skill-{k}", "owner": "team", "tier": "optional"}
                          for k in range(per_scope)])
    for p in range(people):
        scope = root / "people" / f"p{p:04d}"
        _write(scope / "AGENTS.md", f"# person {p}\n")
        for k in range(per_scope):
            _skill(scope / "skills", f"p{p:04d}-skill-{k}")
        _registry(scope, [{"name": f"p{p:04d}-skill-{k}", "owner": f"p{p:04d}",
                           "tier": "optional"} for k in range(per_scope)])
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    _git(root, "add", "-A")
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=root, check=True, env=env)
    _git(root, "checkout", "-q", "-b", "feature")
    _feature_changes(root)
    _git(root, "add", "-A")


def _feature_changes(root: Path) -> None:
    """20 new global skills (10 proven), 10 renames, 5 moves into groups, 1 bad lifecycle."""
    entries = json.loads((root / "skills.json").read_text())["skills"]
    for k in range(20):
        _skill(root / "skills", f"fresh-{k:02d}")
        if k % 2 == 0:
            _write(root / "skills" / f"fresh-{k:02d}" / "test_fresh.sh", "#!/bin/sh\n")
        entries.append({"name": f"fresh-{k:02d}", "owner": "team", "tier": "optional"})
    for k in range(10):
        old, new = f"global-{k:04d}", f"renamed-{k:04d}"
        _git(root, "mv", f"skills/{old}", f"skills/{new}")
        _write(root / "skills" / new / "SKILL.md", f"---\nname: {new}\ndescription: Reworded "
                                                   f"for {new}.\n---\nNew steps.\n")
        entries = [dict(e, name=new) if e["name"] == old else e for e in entries]
    entries[15]["lifecycle"] = "draft"  # active → draft: a forbidden change to report
    _registry(root, entries)
    group = root / "groups" / "g000"
    moved = json.loads((group / "skills.json").read_text())["skills"]
    for p in range(5):
        name = f"p{p:04d}-skill-0"
        _git(root, "mv", f"people/p{p:04d}/skills/{name}", f"groups/g000/skills/{name}")
        moved.append({"name": name, "owner": f"p{p:04d}", "tier": "optional"})
    _registry(group, moved)


def time_command(argv: list[str], cwd: Path, runs: int) -> list[float]:
    """One warm-up run, then ``runs`` timed runs (exit 2 is the expected verdict here)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        samples.append(time.perf_counter() - start)
        if done.returncode not in (0, 2):
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return samples


def run(args) -> None:
    script = shutil.which("authoring-review")
    if script is None:
        raise SystemExit("authoring-review is not installed: run pip install -e . first")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "exobrain"
        generate(root, args.groups, args.people, args.per_scope, args.global_skills)
        files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True,
                               text=True).stdout.count("\n")
        skills = args.global_skills + (args.groups + args.people) * args.per_scope
        verdict = json.loads(subprocess.run([script, "--json"], cwd=root, capture_output=True,
                                            text=True).stdout)
        print(f"synthetic exobrain: {skills} skills, {files} tracked files; feature branch: "
              f"{len(verdict['new_shared_skills'])} new shared skills, "
              f"{len(verdict['lifecycle_problems'])} lifecycle problem(s)")
        samples = time_command([script], root, args.runs)
        median = statistics.median(samples)
        status = "ok" if median <= TARGET_SECONDS else f"OVER target {TARGET_SECONDS:.1f}s"
        print(f"{'authoring-review (staged changes)':42} median {median * 1000:8.1f} ms  "
              f"(min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f}, "
              f"{args.runs} runs)  {status}")


def add_arguments(parser) -> None:
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--per-scope", type=int, default=5)
    parser.add_argument("--global-skills", type=int, default=400)
    parser.add_argument("--runs", type=int, default=11)
