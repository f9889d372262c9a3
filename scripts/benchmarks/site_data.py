"""Synthetic site data for the ``site`` benchmark and the site tests (``synthetic_data(1000)``).

Bodies are markdown of 250–700 words (about 2–4 KB; one skill in twenty 10–25 KB, as
real SKILL.md files run from 2 to 23 KB) drawn from a Zipf-like vocabulary of common
technical words plus ~20,000 invented ones, with headings, lists, code, a table and
links, so page sizes, index size and build time resemble a real repository's. It is the
dict ``exobrain.site.build.build_site`` takes, so the builder is measured on its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from typing import Any

__all__ = ["SCOPES", "synthetic_data"]

_COMMON: list[str] = [
    "data",
    "file",
    "test",
    "build",
    "release",
    "deploy",
    "review",
    "code",
    "docs",
    "api",
    "schema",
    "query",
    "table",
    "index",
    "search",
    "model",
    "train",
    "eval",
    "metric",
    "report",
    "chart",
    "plot",
    "image",
    "text",
    "pdf",
    "csv",
    "json",
    "yaml",
    "sql",
    "python",
    "shell",
    "git",
    "branch",
    "commit",
    "merge",
    "issue",
    "ticket",
    "incident",
    "alert",
    "log",
    "trace",
    "debug",
    "profile",
    "cache",
    "queue",
    "worker",
    "service",
    "server",
    "client",
    "request",
    "response",
    "token",
    "auth",
    "user",
    "team",
    "group",
    "person",
    "host",
    "scope",
    "skill",
    "agent",
    "prompt",
    "context",
    "memory",
    "note",
    "summary",
    "draft",
    "publish",
    "translate",
    "format",
    "lint",
    "check",
    "verify",
    "validate",
    "parse",
    "render",
    "convert",
    "export",
    "import",
    "sync",
    "backup",
    "restore",
    "migrate",
    "upgrade",
    "install",
    "config",
    "secret",
    "key",
    "vault",
    "policy",
    "permission",
    "role",
    "access",
    "audit",
    "compliance",
    "privacy",
    "security",
    "scan",
    "patch",
    "ligand",
    "protein",
    "pocket",
    "dock",
    "molecule",
    "sequence",
    "gene",
    "cell",
    "assay",
    "sample",
    "plate",
    "reagent",
    "protocol",
    "invoice",
    "budget",
    "forecast",
    "revenue",
    "cost",
    "contract",
    "customer",
    "vendor",
    "order",
    "shipment",
    "inventory",
    "meeting",
    "calendar",
    "email",
    "slack",
    "message",
    "digest",
    "weekly",
    "monthly",
    "quarterly",
    "roadmap",
    "goal",
    "milestone",
    "design",
    "figma",
    "mockup",
    "component",
    "style",
    "theme",
    "color",
    "font",
    "layout",
    "page",
    "site",
    "web",
    "app",
    "mobile",
]
SCOPES: list[dict[str, Any]] = (
    [
        {"name": "global", "kind": "global", "chain": ["global"], "description": "Everyone."},
        {
            "name": "seed",
            "kind": "seed",
            "chain": ["global", "seed"],
            "description": "Seed skills.",
        },
    ]
    + [
        {"name": f"groups/g{i}", "kind": "group", "chain": ["global", f"groups/g{i}"]}
        for i in range(6)
    ]
    + [
        {
            "name": f"teams/t{i}",
            "kind": "team",
            "chain": ["global", f"groups/g{i % 6}", f"teams/t{i}"],
        }
        for i in range(12)
    ]
)
_TAGS = [f"tag{i}" for i in range(30)] + ["ops", "science", "writing", "finance", "design"]
_PERSONAS = ["developer", "researcher", "analyst", "manager", "writer", "designer", "support"]


def _vocab(rng: random.Random, n: int = 20000) -> list[str]:
    syl = [
        "ka",
        "lo",
        "mi",
        "ra",
        "ten",
        "vo",
        "su",
        "pel",
        "dri",
        "qua",
        "zen",
        "bor",
        "fi",
        "nu",
        "gar",
        "sil",
        "tro",
        "wex",
        "yal",
        "cho",
    ]
    words = set(_COMMON)
    while len(words) < n:
        words.add("".join(rng.choice(syl) for _ in range(rng.randint(2, 4))))
    common = list(_COMMON)
    return common + sorted(words - set(common))


def _sentence(rng: random.Random, vocab: list[str], k: int) -> str:
    n = len(vocab)
    return (
        " ".join(
            vocab[min(int(rng.paretovariate(0.9)) - 1, n - 1)]
            if rng.random() < 0.7
            else vocab[rng.randrange(n)]
            for _ in range(k)
        ).capitalize()
        + "."
    )


def _body(rng: random.Random, vocab: list[str], name: str, others: list[str]) -> str:
    parts = [f"# {name}", "", _sentence(rng, vocab, rng.randint(12, 25)), "", "## When to use", ""]
    parts += [f"- {_sentence(rng, vocab, rng.randint(6, 14))}" for _ in range(rng.randint(3, 6))]
    parts += ["", "## Steps", ""]
    parts += [
        f"{i + 1}. {_sentence(rng, vocab, rng.randint(8, 20))}" for i in range(rng.randint(3, 8))
    ]
    parts += ["", "```bash", f"{name} --input data.csv --out report.md", "```", ""]
    long_tail = 8 if rng.random() < 0.05 else 1  # 1 skill in 20 has a 10–25 KB body
    for _ in range(rng.randint(2, 5) * long_tail):
        parts += [
            " ".join(_sentence(rng, vocab, rng.randint(8, 22)) for _ in range(rng.randint(2, 5))),
            "",
        ]
    parts += ["| option | meaning |", "|---|---|"]
    parts += [f"| `--{rng.choice(_COMMON)}` | {_sentence(rng, vocab, 5)} |" for _ in range(3)]
    parts += [
        "",
        (
            f"See [the reference](references/guide.md), [{others[0]}](skill:{others[0]})"
            " and [the upstream docs](https://example.org/docs)."
        ),
        "",
    ]
    return "\n".join(parts)


def synthetic_data(n: int, seed: int = 7, today: str = "2026-11-01") -> dict[str, Any]:
    """A ``build_site`` input with ``n`` skills spread over ``SCOPES``."""
    rng = random.Random(seed)
    vocab = _vocab(rng)
    end = dt.date.fromisoformat(today)
    names = [f"{rng.choice(_COMMON)}-{rng.choice(_COMMON)}-{i}" for i in range(n)]
    skills: list[dict[str, Any]] = []
    for name in names:
        home = rng.choice(SCOPES)["name"]
        others = [names[rng.randrange(n)] for _ in range(3)]
        body = _body(rng, vocab, name, others)
        base = rng.randint(0, 40)
        usage = [max(0, int(rng.gauss(base, base / 3 + 1))) for _ in range(90)]
        timeline = [
            {
                "date": (end - dt.timedelta(weeks=52 - w)).isoformat(),
                "up": rng.randint(0, 4),
                "down": rng.randint(0, 1),
                "uses": rng.randint(0, 200),
            }
            for w in range(52)
        ]
        files = [
            {
                "path": p,
                "size": rng.randint(200, 40000),
                "sha256": hashlib.sha256(f"{name}/{p}".encode()).hexdigest(),
            }
            for p in ["SKILL.md", "references/guide.md", "scripts/run.py"][: rng.randint(1, 3)]
        ]
        skills.append(
            {
                "name": name,
                "home": home,
                "description": _sentence(rng, vocab, rng.randint(8, 18)),
                "owner": f"person{rng.randrange(40)}",
                "tier": rng.choice(["optional", "always", "off"]),
                "lifecycle": rng.choices(
                    ["active", "draft", "deprecated", "archived"], [80, 10, 7, 3]
                )[0],
                "version": f"{rng.randint(0, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}",
                "quality": None if rng.random() < 0.1 else round(rng.random(), 3),
                "usage": usage,
                "tags": rng.sample(_TAGS, rng.randint(1, 4)),
                "personas": rng.sample(_PERSONAS, rng.randint(0, 2)),
                "triggers": [_sentence(rng, vocab, 4) for _ in range(rng.randint(1, 3))],
                "last_change": (end - dt.timedelta(days=rng.randint(0, 700))).isoformat(),
                "body": body,
                "frontmatter": {
                    "name": name,
                    "description": "…",
                    "version": "1.0",
                    "metadata": {"owner": "x", "reviewed": True},
                },
                "files": files,
                "lock": {
                    "state": rng.choice(["locked", "locked", "unlocked", "drifted"]),
                    "hash": hashlib.sha256(name.encode()).hexdigest(),
                    "ref": "main",
                },
                "declarations": [
                    {
                        "scope": home,
                        "kind": "declaration",
                        "tier": "optional",
                        "file": f"{home}/skills.json",
                    }
                ],
                "links": [
                    {"type": rng.choice(["supersedes", "derives_from", "uses_skill"]), "target": o}
                    for o in others[: rng.randint(0, 3)]
                ],
                "signals": {
                    "summary": {"votes": rng.randint(0, 50), "rank": rng.randint(1, 5)},
                    "timeline": timeline,
                },
            }
        )
    return {
        "site": {"title": "Synthetic catalog", "generated_at": today, "repo": "acme/exobrain"},
        "scopes": SCOPES,
        "skills": skills,
    }
