"""Benchmark of issue 19: a big exobrain in a sparse, blob-less clone, at one or more sizes.

For each size (``--people 5000,20000,100000``): the exobrain is written straight into a bare
repository with ``git fast-import`` (:mod:`benchmarks.bigrepo`), cloned twice from
``file://`` — a full clone, and ``git clone --filter=blob:none --sparse`` connected as
p0000 (group g000, host h0) with ``connect-agent claude --sparse`` — and then timed:

* ``skills-status`` and ``connect-agent claude --relink`` in the sparse clone;
* ``skills-status --all``: the first run in the fresh clone (it fetches the registries and
  SKILL.md files the clone lacks, once), a first run with the objects present but no cache,
  the second run (unchanged), a run from the cache of git's objects only, and runs that
  each follow a pull of a commit changing a few people (the kept rows patched); then the
  rows published (``exobrain publish-catalog``) and the first run of a fresh clone that
  starts from them;
* ``skills-validate`` in the sparse clone (every registry, the chain's skills), then
  ``skills-status`` again, with the cache of what validate read from git in place;
* ``skills-status --all`` and ``skills-validate`` in the full clone, for comparison;
* the size of the blob-less sparse clone against the full clone (disk usage, ``du``).

Everything is made under ``--workdir`` (default: a temporary folder) and removed afterwards
unless ``--keep``. Only one size is on disk at a time.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.bigrepo import commit_change, import_exobrain
from benchmarks.synthetic import Shape, describe
from benchmarks.timing import bench_env, children_cpu, console_script, report, time_command

CONNECT = ["claude", "--person", "p0000", "--group", "g000", "--host", "h0", "--sparse"]
TARGETS = {
    "status": 0.15,
    "relink": 0.3,
    "all-cached": 2.0,
    "all-first": 10.0,
    "validate": 10.0,
}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, env=bench_env())


def _quiet_git(cwd: Path, *args: str) -> None:
    """git whose hooks (the connection's relink after a pull, its check before a push) are
    not shown."""
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=bench_env(),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _du(path: Path, *, apparent: bool = False) -> int:
    """Disk usage of a folder in bytes (``du -s``; ``apparent``: the files' sizes)."""
    flags = ["-s", "-B1"] + (["--apparent-size"] if apparent else [])
    out = subprocess.run(["du", *flags, str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def _once(argv: list[str], cwd: Path) -> tuple[float, float]:
    """One run's wall and CPU seconds."""
    used = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=bench_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return elapsed, children_cpu() - used


def _drop_cache(root: Path, *, memo_only: bool = False) -> None:
    """Forget the catalog's memo and kept rows of what it printed, and (unless ``memo_only``)
    what was read from git, so the run after works it out again."""
    cache = root / ".exobrain-cache"
    shutil.rmtree(cache / "catalog", ignore_errors=True)  # the memo and the kept rows
    if not memo_only:
        shutil.rmtree(cache / "tree", ignore_errors=True)


def _timed_runs(argv: list[str], cwd: Path, count: int, *, memo_only: bool) -> dict[str, float]:
    """min/median/max wall and median CPU of runs that each start without the memo (and,
    unless ``memo_only``, without the cache of what was read from git)."""
    done = []
    for _ in range(count):
        _drop_cache(cwd, memo_only=memo_only)
        done.append(_once(argv, cwd))
    return _stats(done)


#: People whose folders each pull of the benchmark changes (a new skill each).
CHANGED = 5


def _after_pulls(
    argv: list[str], sparse: Path, bare: Path, people: int, count: int
) -> dict[str, float]:
    """Runs that each follow a pull of a commit changing :data:`CHANGED` random people (the
    kept rows patched; every :data:`~exobrain.catalog.patch.REWRITE_AFTER` changed units they
    are written anew, so the slowest run shows that too)."""
    rng = random.Random(19)
    done = []
    for round_ in range(count):
        chosen = [f"p{n:04d}" for n in rng.sample(range(1, people), CHANGED)]
        commit_change(bare, chosen, f"b{round_}")
        _quiet_git(sparse, "pull", "-q", "--ff-only")
        done.append(_once(argv, sparse))
    return _stats(done)


def _published_first_run(work: Path, bare: Path, sparse: Path, status: str) -> None:
    """CI's way: the catalog's rows published from a clean checkout (here the sparse clone)
    and pushed; then a fresh blob-less clone that names the branch runs its first --all."""
    exobrain = console_script("exobrain")
    wall, _ = _once([exobrain, "publish-catalog"], sparse)
    print(f"{'exobrain publish-catalog':42} {wall * 1000:8.1f} ms")
    _quiet_git(sparse, "push", "-q", "--force", "origin", "exobrain-catalog")
    fresh = work / "fresh"
    _git(work, "clone", "-q", "--filter=blob:none", "--sparse", f"file://{bare}", str(fresh))
    _once([console_script("connect-agent"), *CONNECT], fresh)
    _git(fresh, "config", "exobrain.catalog", "origin/exobrain-catalog")
    first, cpu = _once([status, "--all"], fresh)
    done = {"median": first, "min": first, "max": first, "cpu": cpu, "runs": 1}
    print(report("--all, first in a fresh clone (published)", done, TARGETS["all-first"]))
    shutil.rmtree(fresh)


def _stats(done: list[tuple[float, float]]) -> dict[str, float]:
    """min/median/max wall and median CPU of (wall, CPU) runs."""
    walls = sorted(wall for wall, _ in done)
    return {
        "median": walls[len(walls) // 2],
        "min": walls[0],
        "max": walls[-1],
        "cpu": sorted(cpu for _, cpu in done)[len(done) // 2],
        "runs": len(done),
    }


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB"


def measure(work: Path, shape: Shape, runs: int, full: bool) -> None:
    print(describe(shape))
    bare = work / "origin.git"
    seconds = import_exobrain(bare, shape)
    print(f"git fast-import: {seconds:.1f} s, pack {_mb(_du(bare))}")
    status, connect = console_script("skills-status"), console_script("connect-agent")
    validate = console_script("skills-validate")
    sparse = work / "sparse"
    start = time.perf_counter()
    _git(work, "clone", "-q", "--filter=blob:none", "--sparse", f"file://{bare}", str(sparse))
    print(f"blob-less sparse clone: {time.perf_counter() - start:.1f} s")
    first, _ = _once([connect, *CONNECT], sparse)
    print(f"connect-agent claude --sparse (first, sets the cone): {first:.2f} s")
    sparse_size = _du(sparse)
    cases = [
        ("skills-status (sparse)", [status], runs, "status"),
        ("connect-agent claude --relink (sparse)", [connect, "claude", "--relink"], runs, "relink"),
    ]
    for label, argv, count, target in cases:
        print(report(label, time_command(argv, sparse, count), TARGETS[target]))
    fetching, fetching_cpu = _once([status, "--all"], sparse)
    print(
        f"{'skills-status --all, first (fetches blobs)':42} {fetching * 1000:8.1f} ms"
        f"  cpu {fetching_cpu * 1000:.1f} ms"
    )
    for kind in ("units", "registries", "descriptions"):
        shards = list((sparse / ".exobrain-cache/tree").glob(f"{kind}-*.json"))
        size = sum(f.stat().st_size for f in shards)
        print(f"cache .exobrain-cache/tree/{kind}-*.json: {_mb(size)} in {len(shards)} shards")
    cold = _timed_runs([status, "--all"], sparse, max(1, runs // 4), memo_only=False)
    print(report("skills-status --all, first (no cache)", cold, TARGETS["all-first"]))
    warm = _timed_runs([status, "--all"], sparse, max(1, runs // 4), memo_only=True)
    print(report("skills-status --all, from the git cache only", warm, TARGETS["all-cached"]))
    cached = time_command([status, "--all"], sparse, max(3, runs // 2))
    print(report("skills-status --all, second (unchanged)", cached, TARGETS["all-cached"]))
    pulled = _after_pulls([status, "--all"], sparse, bare, shape.people, max(3, runs))
    print(report(f"--all after a pull ({CHANGED} people)", pulled, TARGETS["all-cached"]))
    checked = time_command([validate], sparse, max(3, runs // 4), check_codes=(0, 1))
    print(report("skills-validate (sparse)", checked, TARGETS["validate"]))
    # the cache validate wrote (.exobrain-cache/tree/) must not slow the chain's status down
    after = time_command([status], sparse, runs)
    print(report("skills-status (sparse, after validate)", after, TARGETS["status"]))
    _published_first_run(work, bare, sparse, status)
    if full:
        whole = work / "full"
        start = time.perf_counter()
        _git(work, "clone", "-q", f"file://{bare}", str(whole))
        print(f"full clone: {time.perf_counter() - start:.1f} s")
        full_size = _du(whole)
        share = 100 * sparse_size / full_size
        print(
            f"size: sparse blob-less {_mb(sparse_size)}, full {_mb(full_size)} "
            f"({share:.2f} %; apparent {_mb(_du(sparse, apparent=True))} vs "
            f"{_mb(_du(whole, apparent=True))})"
        )
        (whole / ".exobrain.json").write_text((sparse / ".exobrain.json").read_text())
        print(report("skills-status --all (full)", time_command([status, "--all"], whole, 3)))
        print(report("skills-validate (full)", time_command([validate], whole, 1)))
        shutil.rmtree(whole)


def run(args) -> None:
    base = Path(args.workdir) if args.workdir else None
    for people in (int(p) for p in args.people.split(",")):
        shape = Shape(args.groups, people, args.hosts, args.per_scope, args.global_skills, 50)
        work = Path(tempfile.mkdtemp(prefix=f"scale-{people}-", dir=base))
        try:
            measure(work, shape, args.runs, not args.no_full)
        finally:
            if args.keep:
                print(f"kept: {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
        print()


def add_arguments(parser) -> None:
    parser.add_argument("--people", default="100000", help="comma-separated sizes")
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--per-scope", type=int, default=2)
    parser.add_argument("--global-skills", type=int, default=400)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--workdir", default=os.environ.get("TMPDIR"))
    parser.add_argument("--no-full", action="store_true", help="skip the full clone")
    parser.add_argument("--keep", action="store_true", help="keep the repositories made")
