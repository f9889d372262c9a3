"""Benchmark of issues 9 and 16: importing a whole bundle and exporting it again.

Generates a K-Dense-style bundle (a ``.claude-plugin/marketplace.json``, skills under
``scientific-skills/``, about 1,250 files and 19 MB of incompressible text) — or, with
``--bundle PATH``, takes a real one from a local folder (the whole 134-skill K-Dense bundle,
say: ``git archive`` of a clone, extracted), whose skills need real repairs (an over-long
description cut, keys moved into metadata). Then times the installed ``exobrain`` console
script: ``import BUNDLE --all`` into a fresh exobrain each run, translation, repairs, hashing
and locking included (target ≤ 2 s), a no-op ``import --update`` of one skill, and
``export --all SCOPE`` as ``agentskills-io`` folders, as one ``--zip`` and as a
``claude-plugin`` (target ≤ 2 s). A plain ``cp -r`` of the bundle is timed first, as the
floor the file system sets on this machine. Wall time and the child's CPU time are
reported (user and system CPU separately): on a shared, loaded machine the CPU time says what
the command itself costs, and system time is mostly the file system creating ~1,250 files.
"""

from __future__ import annotations

import base64
import json
import random
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.timing import bench_env, console_script

SCOPE = "people/bench"


def generate_bundle(root: Path, *, skills: int, total_mb: float, files: int, seed: int = 9) -> dict:
    """Write the bundle; return its shape (skills, files, bytes)."""
    rng = random.Random(seed)
    extra = files - skills  # files besides the SKILL.md files
    per_file = int(total_mb * 1e6 / max(extra, 1))
    names = [f"skill-{i:03d}" for i in range(skills)]
    written, count = 0, 0
    for index, name in enumerate(names):
        folder = root / "scientific-skills" / name
        (folder / "references").mkdir(parents=True)
        (folder / "scripts").mkdir()
        colon = ":" if index % 10 == 0 else ";"  # one in ten needs the YAML repair
        text = (
            f"---\nname: {name}\ndescription: Use {name} when the user asks about topic "
            f"{index}{colon} methods, data and pitfalls.\nlicense: MIT license\nmetadata:\n"
            f'    skill-author: K-Dense Inc.\n    version: "1.{index % 7}"\n---\n'
            f"# {name}\n\nInstructions for topic {index}.\n"
        )
        (folder / "SKILL.md").write_text(text)
        written, count = written + len(text), count + 1
        share = extra // skills + (1 if index < extra % skills else 0)
        for k in range(share):
            sub = ("references", "scripts")[k % 2]
            data = base64.encodebytes(rng.randbytes(per_file * 3 // 4))
            (folder / sub / f"part-{k}.{'md' if sub == 'references' else 'py'}").write_bytes(data)
            written, count = written + len(data), count + 1
    manifest = {
        "name": "bench-skills",
        "owner": {"name": "bench"},
        "plugins": [
            {
                "name": "scientific-skills",
                "source": "./",
                "skills": [f"./scientific-skills/{n}" for n in names],
            }
        ],
    }
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps(manifest, indent=2))
    return {"skills": skills, "files": count, "bytes": written}


def fresh_exobrain(root: Path) -> Path:
    (root / SCOPE).mkdir(parents=True)
    (root / SCOPE / "AGENTS.md").write_text("# bench\n")
    (root / ".exobrain.json").write_text(
        json.dumps({"connected_scopes": [SCOPE], "person": "bench"})
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def timed(argv: list[str], cwd: Path) -> tuple[float, float, float]:
    """(wall, child user CPU, child system CPU) seconds of one run; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=bench_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-800:]!r}")
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def line(label: str, samples: list[tuple[float, float, float]], target: float) -> str:
    walls = [s[0] for s in samples]
    wall = statistics.median(walls)
    user, system = (statistics.median(s[k] for s in samples) for k in (1, 2))
    verdict = "ok" if wall <= target else f"OVER target {target:g}s"
    return (
        f"{label:44} wall median {wall * 1000:5.0f} ms (min {min(walls) * 1000:.0f}, "
        f"max {max(walls) * 1000:.0f}); CPU user {user * 1000:4.0f} ms, system "
        f"{system * 1000:4.0f} ms; {len(samples)} runs  {verdict}"
    )


def measure(folder: Path) -> dict:
    """The shape of a bundle given on the command line: its skills, files and bytes."""
    files = [p for p in folder.rglob("*") if p.is_file() and ".git" not in p.parts]
    skills = sum(1 for p in files if p.name == "SKILL.md")
    return {"skills": skills, "files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def repairs(exobrain: str, root: Path, bundle: Path) -> str:
    """What an import of ``bundle`` into ``root`` repaired and skipped, in one line."""
    done = subprocess.run(
        [exobrain, "import", str(bundle), "--all", "--dry-run", "--json"],
        cwd=root,
        env=bench_env(),
        capture_output=True,
        text=True,
    )
    skills = json.loads(done.stdout)["skills"]
    repaired = [s["name"] for s in skills if s["repairs"]]
    skipped = [s["name"] for s in skills if s["status"] == "skipped"]
    return (
        f"repairs: {sum(len(s['repairs']) for s in skills)} in {len(repaired)} skills "
        f"({', '.join(repaired)}); skipped: {len(skipped)}"
    )


def run(args) -> None:
    exobrain = console_script("exobrain")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if args.bundle:
            bundle = args.bundle.resolve()
            shape = measure(bundle)
        else:
            bundle = base / "bundle"
            shape = generate_bundle(
                bundle, skills=args.skills, total_mb=args.megabytes, files=args.files
            )
        print(
            f"bundle: {shape['skills']} skills, {shape['files']} files, "
            f"{shape['bytes'] / 1e6:.1f} MB"
        )
        print(repairs(exobrain, fresh_exobrain(base / "dry"), bundle))
        copies = [
            timed(["cp", "-r", str(bundle), str(base / f"cp-{k}")], base) for k in range(args.runs)
        ]
        print(line("reference: cp -r BUNDLE (copy only)", copies, 2.0))
        imports = []
        for k in range(args.runs + 1):  # the first run warms the caches and is not counted
            root = fresh_exobrain(base / f"import-{k}")
            sample = timed([exobrain, "import", str(bundle), "--all"], root)
            if k:
                imports.append(sample)
        print(line(f"exobrain import BUNDLE --all ({shape['skills']} skills)", imports, 2.0))
        root = base / "import-0"
        first = sorted(p.parent.name for p in (root / SCOPE / "skills").glob("*/SKILL.md"))[0]
        updates = [timed([exobrain, "import", "--update", first], root) for _ in range(args.runs)]
        print(line(f"exobrain import --update {first} (no-op)", updates, 2.0))
        for label, extra in (
            ("agentskills-io -o DIR", ["--format", "agentskills-io", "-o"]),
            ("agentskills-io --zip FILE", ["--format", "agentskills-io", "--zip"]),
            ("claude-plugin -o DIR", ["--format", "claude-plugin", "-o"]),
        ):
            samples = []
            for k in range(args.runs + 1):
                out = base / f"export-{label.split()[0]}-{extra[-1]}-{k}"
                sample = timed([exobrain, "export", "--all", SCOPE, *extra, str(out)], root)
                if k:
                    samples.append(sample)
            print(line(f"exobrain export --all ({label})", samples, 2.0))


def add_arguments(parser) -> None:
    parser.add_argument(
        "--bundle",
        type=Path,
        help="a real bundle folder to import instead of a generated one (never downloaded)",
    )
    parser.add_argument("--skills", type=int, default=150)
    parser.add_argument("--files", type=int, default=1250, help="files in the bundle")
    parser.add_argument("--megabytes", type=float, default=19.0)
    parser.add_argument("--runs", type=int, default=5)
