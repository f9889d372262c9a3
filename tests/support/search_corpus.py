"""The search-quality fixture: a real exobrain built from tests/fixtures/search_corpus.yaml."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.support import FIXTURES
from tests.support.helpers import exobrain

FIXTURE = FIXTURES / "search_corpus.yaml"


def load_fixture() -> dict:
    return yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))


def skill_text(skill: dict) -> str:
    meta = {
        k: skill[k] for k in ("name", "description", "triggers", "tags", "personas") if k in skill
    }
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n# {skill['name']}\n\n{skill['body']}\n"


def build_corpus(root: Path) -> Path:
    """Every fixture skill declared (forced, optional) in the global scope of a new exobrain."""
    data = load_fixture()
    entries = [
        {"name": s["name"], "owner": "fixture", "tier": "optional", "force": True}
        for s in data["skills"]
    ]
    skills = {f"global/{s['name']}": skill_text(s) for s in data["skills"]}
    return exobrain(root, {"global": entries}, skills=skills)


def evaluate(run, queries: list[dict]) -> dict:
    """precision@1 and MRR (over the top 10) of ``run(query) -> [names]``, per query kind."""
    totals: dict[str, dict] = {}
    for item in queries:
        names = run(item["q"])
        rank = names.index(item["expect"]) + 1 if item["expect"] in names else None
        for kind in (item["kind"], "all"):
            t = totals.setdefault(kind, {"n": 0, "p1": 0, "rr": 0.0, "misses": []})
            t["n"] += 1
            t["p1"] += rank == 1
            t["rr"] += 1.0 / rank if rank else 0.0
            if rank != 1 and kind != "all":
                t["misses"].append((item["q"], item["expect"], names[:3]))
    return {
        kind: {
            "precision_at_1": t["p1"] / t["n"],
            "mrr": t["rr"] / t["n"],
            "n": t["n"],
            "misses": t["misses"],
        }
        for kind, t in totals.items()
    }
