"""Benchmark of issue 4: what fetching external skills costs from a big repository.

Generates (with ``git fast-import``) a bare repository with a long history and a checkout of
many skill folders, serves it over ``file://`` with ``uploadpack.allowFilter``, then measures:
the objects the cache stores for one skill against the skill folder's own size (target ≤ 2×),
what a second skill from the same repository adds, ``git clone --depth 1`` for comparison, and
a no-op rerun of ``fetch-external-skills`` with 20 installed pinned skills (target ≤ 150 ms
and zero network calls).
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.timing import bench_env, console_script, report, time_command

CATEGORIES = 15
FILES_PER_SKILL = 10


def skill_paths(skills: int) -> list[str]:
    return [f"skills/cat-{i % CATEGORIES:02d}/skill-{i:04d}" for i in range(skills)]


def _files(path: str, size: int, rng: random.Random) -> dict[str, bytes]:
    """One skill folder: a SKILL.md plus references and scripts of random text."""
    name = path.rsplit("/", 1)[-1]
    files = {
        f"{path}/SKILL.md": (
            f"---\nname: {name}\ndescription: Use {name} for benchmark "
            f"topic {name}.\n---\n# {name}\n"
        ).encode()
    }
    for k in range(1, FILES_PER_SKILL):
        sub = "references" if k % 2 else "scripts"
        files[f"{path}/{sub}/part-{k}.md"] = _text(size, rng)
    return files


def _text(size: int, rng: random.Random) -> bytes:
    """Incompressible text (base64 of random bytes), so sizes mean what they say."""
    return base64.encodebytes(rng.randbytes(size * 3 // 4))


def generate(
    bare: Path, *, skills: int, checkout_mb: float, history_mb: float, seed: int = 4
) -> dict:
    """Write the bare repository; return its shape. History is random rewrites of files."""
    rng = random.Random(seed)
    per_file = int(checkout_mb * 1e6 / (skills * (FILES_PER_SKILL - 1)))
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=bare, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    out = proc.stdin
    paths = skill_paths(skills)
    tree: dict[str, bytes] = {}
    for path in paths:
        tree.update(_files(path, per_file, rng))
    written, commit, when = 0, 0, 1_700_000_000
    names = sorted(tree)
    while True:
        changed = names if commit == 0 else rng.sample(names, 40)
        if commit:
            for name in changed:
                if not name.endswith("SKILL.md"):
                    tree[name] = _text(per_file, rng)
        message = f"commit {commit}\n".encode()
        out.write(
            f"commit refs/heads/main\ncommitter Bench <bench@example.com> {when + commit} "
            f"+0000\ndata {len(message)}\n".encode()
            + message
        )
        for name in changed:
            data = tree[name]
            out.write(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
            written += len(data)
        commit += 1
        if written >= history_mb * 1e6 / 0.76:  # base64 text packs to ~76 % of its size
            break
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "config", "uploadpack.allowFilter", "true"], cwd=bare, check=True)
    return {
        "commits": commit,
        "skills": skills,
        "files": len(tree),
        "checkout_bytes": sum(len(v) for v in tree.values()),
        "history_bytes": folder_bytes(bare / "objects"),
    }


def folder_bytes(folder: Path) -> int:
    """Apparent size of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def mb(n: int) -> str:
    return f"{n / 1e6:8.2f} MB"


def _exobrain(root: Path, url: str, skills: list[str], ref: str) -> None:
    from exobrain.util.fileio import dump_json

    root.mkdir(parents=True)
    entries = [
        {
            "name": p.rsplit("/", 1)[-1],
            "owner": "bench",
            "tier": "always",
            "force": True,
            "source": {"repo": url, "path": p, "ref": ref},
        }
        for p in skills
    ]
    (root / "skills.json").write_text(dump_json({"skills": entries}))
    (root / ".exobrain.json").write_text(
        dump_json({"agents": ["claude"], "external_skills": {"allow_local": True}})
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def _sync(root: Path, cache: Path):
    from exobrain.agents import get_agent
    from exobrain.fetch.fetcher import sync_external
    from exobrain.workspace import open_workspace

    agent = get_agent("claude")
    started = time.perf_counter()
    result = sync_external(open_workspace(root), agent.folders(root), cache_dir=cache)
    if result.failed:
        raise SystemExit("\n".join(e.line() for e in result.events if e.failed))
    return result, time.perf_counter() - started


def run(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        bare = base / "upstream.git"
        started = time.perf_counter()
        shape = generate(
            bare, skills=args.skills, checkout_mb=args.checkout_mb, history_mb=args.history_mb
        )
        print(
            f"generated in {time.perf_counter() - started:.1f}s: {shape['commits']} commits, "
            f"{shape['skills']} skill folders, {shape['files']} files; "
            f"history {mb(shape['history_bytes']).strip()}, "
            f"checkout {mb(shape['checkout_bytes']).strip()}"
        )
        url = bare.as_uri()
        head = subprocess.run(
            ["git", "rev-parse", "main"], cwd=bare, check=True, capture_output=True, text=True
        ).stdout.strip()
        paths = skill_paths(args.skills)
        cache = base / "cache"
        one = base / "one"
        _exobrain(one, url, paths[:1], "main")
        first, seconds = _sync(one, cache)
        skill_dir = one / ".claude/skills" / f"{paths[0].rsplit('/', 1)[-1]}.bench"
        skill = folder_bytes(skill_dir)
        stored = folder_bytes(cache / "git")
        objects = sum(folder_bytes(p / "objects") for p in (cache / "git").glob("*.git"))
        print(
            f"one skill ({skill_dir.name}): folder {mb(skill)}; cache objects {mb(objects)}, "
            f"whole cache {mb(stored)} -> {objects / skill:.2f}x the skill "
            f"(target <= 2x) {'ok' if objects <= 2 * skill else 'OVER'}; "
            f"{first.network_calls} network calls, {seconds * 1000:.0f} ms"
        )
        shutil.rmtree(one / ".claude")
        (one / "skills.json").unlink()
        _exobrain(base / "two", url, paths[:2], "main")
        second, seconds = _sync(base / "two", cache)
        objects2 = sum(folder_bytes(p / "objects") for p in (cache / "git").glob("*.git"))
        skill2 = folder_bytes(base / "two/.claude/skills" / f"{paths[1].rsplit('/', 1)[-1]}.bench")
        print(
            f"second skill from the same repository: adds {mb(objects2 - objects)} to the "
            f"cache for a {mb(skill2).strip()} folder ({(objects2 - objects) / skill2:.2f}x); "
            f"{second.network_calls} network calls, {seconds * 1000:.0f} ms"
        )
        for label, extra in (
            ("git clone --depth 1", []),
            ("git clone --depth 1 --filter=blob:none", ["--filter=blob:none"]),
        ):
            clone = base / f"clone-{len(extra)}.git"
            subprocess.run(
                ["git", "clone", "-q", "--bare", "--depth", "1", *extra, url, str(clone)],
                check=True,
            )
            print(f"{label + ':':42} {mb(folder_bytes(clone / 'objects'))} of objects")
        _noop(base, url, paths[: args.installed], head, cache, args.runs)


def _noop(base: Path, url: str, paths: list[str], head: str, cache: Path, runs: int) -> None:
    root = base / "many"
    _exobrain(root, url, paths, head)
    installed, seconds = _sync(root, cache)
    print(f"installed {len(installed.events)} pinned skills in {seconds:.2f}s")
    script = console_script("fetch-external-skills")
    os.environ["EXOBRAIN_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [script, "--json"], cwd=root, env=bench_env(), capture_output=True, text=True
    )
    data = json.loads(done.stdout)
    calls = sum(r["network_calls"] for r in data["reports"])
    actions = {e["action"] for r in data["reports"] for e in r["events"]}
    print(f"no-op rerun: actions {sorted(actions)}, network calls {calls} (target 0)")
    stats = time_command([script], root, runs)
    print(report(f"fetch-external-skills, {len(paths)} pinned, no-op", stats, 0.150))


def add_arguments(parser) -> None:
    parser.add_argument("--history-mb", type=float, default=240)
    parser.add_argument("--checkout-mb", type=float, default=12)
    parser.add_argument("--skills", type=int, default=300, help="skill folders in the checkout")
    parser.add_argument("--installed", type=int, default=20, help="pinned skills for the no-op")
    parser.add_argument("--runs", type=int, default=21)
