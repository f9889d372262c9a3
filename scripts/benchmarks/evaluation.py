"""Search quality on real skills: P@1, MRR@5 and recall@5 per kind of query.

``python scripts/benchmarks eval --corpus DIR --queries FILE`` scores the project's search the
way ``run_eval.py`` of the development set does: every SKILL.md under DIR (its frontmatter
``name``, else its folder's) is copied with its folder into the global scope of a new exobrain
and declared there (forced, optional); ``exobrain index`` builds the cache with every
installed encoder; then each query of FILE (JSON lines ``{"q", "expect": [names], "kind"}``)
runs through the code ``exobrain search --json -k 5`` runs, in this process, and the top 5
are scored. ``--mode`` picks hybrid, lexical (``--lexical``) or both side by side;
``--encoders`` limits hybrid to some of the installed encoders (what a user who installed only
one gets); ``--into`` keeps the exobrain (a git repository) for ``run_eval.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

K = 5
_NAME = re.compile(r"^name:\s*['\"]?([^'\"\n]+?)['\"]?\s*$", re.MULTILINE)


def corpus_skills(corpus: Path) -> dict[str, Path]:
    """name → folder of every SKILL.md below ``corpus`` (names as run_eval.py reads them)."""
    found: dict[str, Path] = {}
    for path in sorted(corpus.rglob("SKILL.md")):
        match = _NAME.search(path.read_text(encoding="utf-8"))
        found.setdefault(match.group(1) if match else path.parent.name, path.parent)
    return found


def build_exobrain(corpus: Path, root: Path) -> Path:
    """A git exobrain at ``root`` whose global scope declares every skill of ``corpus``."""
    from exobrain.paths import packaged

    skills = corpus_skills(corpus)
    root.mkdir(parents=True)
    for name, folder in skills.items():
        shutil.copytree(folder, root / "skills" / name)
    entries = [{"name": n, "owner": "eval", "tier": "optional", "force": True} for n in skills]
    (root / "skills.json").write_text(
        json.dumps({"$schema": "skills.schema.json", "skills": entries}, indent=1), "utf-8"
    )
    shutil.copy(packaged("skills.schema.json"), root / "skills.schema.json")
    (root / ".gitignore").write_text("/.exobrain.json\n/.exobrain-cache/\n", "utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "corpus"]):
        subprocess.run(
            ["git", "-c", "user.name=eval", "-c", "user.email=eval@example.com", *args],
            cwd=root,
            check=True,
        )
    return root


def load_queries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def score(queries: list[dict], run) -> dict:
    """Per query its top 5 (``run(text) -> [names]``) and rank of the first expected name,
    then P@1, MRR@5 and recall@5 overall (``all``) and per kind."""
    rows = []
    for query in queries:
        top = run(query["q"])[:K]
        rank = next((i + 1 for i, name in enumerate(top) if name in query["expect"]), 0)
        rows.append({**query, "got": top, "rank": rank})
    table = {}
    for kind in ["all", *sorted({r.get("kind", "") for r in rows})]:
        chosen = [r for r in rows if kind == "all" or r.get("kind", "") == kind]
        n = len(chosen) or 1
        table[kind] = {
            "n": len(chosen),
            "p1": sum(r["rank"] == 1 for r in chosen) / n,
            "mrr5": sum(1 / r["rank"] for r in chosen if r["rank"]) / n,
            "r5": sum(r["rank"] > 0 for r in chosen) / n,
        }
    return {"table": table, "rows": rows}


def runner(root: Path, semantic: bool):
    """``text → [names]``: the search ``exobrain search --json -k 5`` runs."""
    from exobrain.search.engine import search, signal_quality
    from exobrain.workspace import open_workspace

    ws = open_workspace(root)
    quality = signal_quality(ws)

    def run(text: str) -> list[str]:
        result = search(ws, text, k=K, semantic=semantic, quality=quality)
        if semantic and result.pending:
            raise SystemExit(f"encoders not ready: {result.pending}")
        return [hit.artifact.name for hit in result.hits]

    return run


def evaluate(root: Path, queries: list[dict], modes: list[str]) -> dict[str, dict]:
    return {mode: score(queries, runner(root, mode == "hybrid")) for mode in modes}


def only_encoders(roles: list[str]) -> None:
    """From now on, this process finds only the encoders ``roles`` (as if only they were
    installed)."""
    from exobrain.search import embedding

    installed = embedding.find_models
    embedding.find_models = lambda wanted=embedding.ROLES: installed(
        [r for r in wanted if r in roles]
    )


def report(results: dict[str, dict]) -> str:
    modes = list(results)
    kinds = list(next(iter(results.values()))["table"])
    head = f"{'':11}" + "".join(f"| {m:^34} " for m in modes)
    lines = [head, f"{'':11}" + "| P@1    MRR@5  R@5     (n)         " * len(modes)]
    for kind in kinds:
        cells = []
        for mode in modes:
            t = results[mode]["table"][kind]
            cells.append(f"| {t['p1']:.3f}  {t['mrr5']:.3f}  {t['r5']:.3f}   (n={t['n']:<4})   ")
        lines.append(f"{kind:11}" + "".join(cells))
    return "\n".join(lines)


def run(args) -> None:
    from exobrain.search.build import build_index
    from exobrain.workspace import open_workspace

    modes = ["hybrid", "lexical"] if args.mode == "both" else [args.mode]
    queries = load_queries(args.queries)
    if args.encoders:
        only_encoders(args.encoders.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        root = build_exobrain(args.corpus, args.into or Path(tmp) / "exobrain")
        started = time.perf_counter()
        update = build_index(open_workspace(root))
        print(
            f"corpus: {len(corpus_skills(args.corpus))} skills; queries: {len(queries)}; "
            f"index built in {time.perf_counter() - started:.1f} s "
            f"(embedded {update.embedded or 'nothing'})"
        )
        results = evaluate(root, queries, modes)
    print(report(results))
    for mode in modes if args.verbose else []:
        print(f"\n{mode}: queries whose first hit was wrong")
        for r in results[mode]["rows"]:
            if r["rank"] != 1:
                print(f"  {'  ' if r['rank'] else 'X '}[{r.get('kind', '')[:4]}] {r['q']}")
                print(f"        expect {r['expect']}  got {r['got']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), "utf-8")


def add_arguments(parser) -> None:
    parser.add_argument("--corpus", type=Path, required=True, help="Folder of skill folders.")
    parser.add_argument("--queries", type=Path, required=True, help="JSON lines of queries.")
    parser.add_argument("--mode", choices=("hybrid", "lexical", "both"), default="both")
    parser.add_argument("--encoders", metavar="R[,R]", help="Use only these encoders.")
    parser.add_argument("--into", type=Path, help="Build the exobrain here and keep it.")
    parser.add_argument("--json", type=Path, help="Write every query's result here.")
    parser.add_argument("-v", "--verbose", action="store_true", help="List the misses.")
