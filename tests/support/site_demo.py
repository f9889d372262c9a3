"""A small hand-written site catalog (the dict ``build_site`` takes) for the site tests.

It exercises every part of the schema, a scope known only from a chain (``groups/eng``),
a name that needs a hashed slug (``Odd Name``), a bare-name link, links in both
directions, and a hostile skill (``hostile-content``) whose every text field tries to run
script: nothing of it may run in the built site.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["HOSTILE_BODY", "demo_data"]

HOSTILE_BODY = """# Hostile content

This skill tries every trick. None of it may run.

<script>window.__pwned = 1; document.title = "PWNED";</script>
<img src="x" onerror="window.__pwned = 2; document.title = 'PWNED'">
<a href="javascript:window.__pwned=3">raw html link</a>
<svg onload="window.__pwned = 10"></svg>
<iframe src="javascript:window.__pwned=11"></iframe>

- [click me](javascript:window.__pwned=4)
- [click me too](JaVaScRiPt:window.__pwned=5)
- [spaced]( javascript:window.__pwned=6 )
- <javascript:window.__pwned=7>
- [data url](data:text/html,<script>window.__pwned=8</script>)
- ![image](javascript:window.__pwned=9)
- [reference link][evil]
- [encoded](%6Aavascript:window.__pwned=13)
- [vb](vbscript:msgbox(1))
- [safe link](https://example.org/docs) and [a skill](skill:pdf-tools)

[evil]: javascript:window.__pwned=12

```html
<script>window.__pwned = 14</script>
```
"""


def _usage(base: int, slope: int = 0) -> list[int]:
    return [max(0, base + slope * d // 10 + (d * 7) % 5) for d in range(90)]


def _timeline(n: int, uses: int) -> list[dict[str, Any]]:
    return [
        {
            "date": f"2026-{1 + w // 5:02d}-{1 + (w % 5) * 6:02d}",
            "up": (w * 3) % 4,
            "down": 1 if w % 7 == 0 else 0,
            "uses": uses + (w * 13) % 30,
        }
        for w in range(n)
    ]


SCOPES: list[dict[str, Any]] = [
    {"name": "global", "kind": "global", "chain": ["global"], "description": "Everyone sees it."},
    {"name": "seed", "kind": "seed", "chain": ["global", "seed"], "description": "Seed skills."},
    {"name": "groups/data", "kind": "group", "chain": ["global", "groups/data"]},
    {"name": "groups/science", "kind": "group", "chain": ["global", "groups/science"]},
    {
        "name": "teams/platform",
        "kind": "team",
        "chain": ["global", "groups/eng", "teams/platform"],
        "description": "Platform team.",
    },
    {"name": "groups/sandbox", "kind": "group", "chain": ["global", "groups/sandbox"]},
]


def _skill(name: str, home: str, description: str, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "home": home,
        "description": description,
        "owner": "alex",
        "tier": "optional",
        "lifecycle": "active",
        "version": "1.0.0",
        "quality": 0.5,
        "usage": _usage(3),
        "tags": [],
        "personas": [],
        "triggers": [],
        "last_change": "2026-10-01",
        "body": f"# {name}\n\n{description}\n",
        "frontmatter": {"name": name, "description": description},
        "files": [{"path": "SKILL.md", "size": 1234, "sha256": "ab" * 32}],
        "lock": {"state": "locked", "hash": "cd" * 32, "ref": "main"},
        "declarations": [
            {
                "scope": home,
                "kind": "declaration",
                "tier": "optional",
                "file": f"{home}/skills.json",
            }
        ],
        "links": [],
        "signals": {"summary": {"votes": 3}, "timeline": _timeline(20, 10)},
    }
    base.update(kw)
    return base


_SKILLS: list[dict[str, Any]] = [
    _skill(
        "pdf-tools",
        "global",
        "Extract text and tables from PDF files.",
        quality=0.9,
        usage=_usage(20, 2),
        tags=["documents", "ops"],
        personas=["analyst"],
        triggers=["extract text from a pdf", "read a scanned document"],
        last_change="2026-10-20",
        tier="always",
        body="# PDF tools\n\nUse `pdftotext` first; fall back to OCR.\n\n## Steps\n\n"
        "1. Run the [extract script](scripts/extract.py).\n"
        "2. Clean the tables with [csv-clean](skill:csv-clean).\n"
        "3. See [the steps](#steps) and [upstream](https://example.org/pdf).\n",
        files=[
            {"path": "SKILL.md", "size": 2048, "sha256": "11" * 32},
            {"path": "scripts/extract.py", "size": 512, "sha256": "22" * 32},
        ],
        links=[{"type": "uses_skill", "target": "csv-clean"}],
        declarations=[
            {"scope": "global", "kind": "declaration", "tier": "always", "file": "skills.json"},
            {
                "scope": "teams/platform",
                "kind": "override",
                "tier": "off",
                "file": "teams/platform/skills.json",
                "note": "we use our own",
            },
        ],
    ),
    _skill(
        "csv-clean",
        "groups/data",
        "Clean and normalise CSV files before analysis.",
        quality=0.7,
        tags=["data"],
        personas=["analyst"],
        usage=_usage(8),
        triggers=["tidy a spreadsheet"],
        last_change="2026-09-02",
    ),
    _skill(
        "ligand-dock",
        "groups/science",
        "Dock a ligand into a protein pocket.",
        quality=0.8,
        tags=["science"],
        personas=["researcher"],
        usage=_usage(5, 1),
        triggers=["molecular docking", "binding pose"],
        last_change="2026-10-28",
        body="# Ligand docking\n\nPrepare the receptor, then dock the ligand into the "
        "pocket and score the poses.\n\n| step | tool |\n|---:|:---|\n| 1 | prep |\n"
        "| 2 | dock |\n",
    ),
    _skill(
        "release-notes",
        "teams/platform",
        "Write release notes from merged pull requests.",
        quality=0.6,
        tags=["writing", "ops"],
        personas=["developer", "manager"],
        usage=_usage(12),
        triggers=["draft the changelog"],
        last_change="2026-08-15",
        links=[{"type": "supersedes", "target": "changelog-writer@teams/platform"}],
        lock={"state": "drifted", "hash": "ef" * 32, "expected": "cd" * 32},
    ),
    _skill(
        "changelog-writer",
        "teams/platform",
        "Old way to write release notes and a changelog.",
        lifecycle="deprecated",
        quality=0.3,
        tags=["writing"],
        usage=_usage(1),
        last_change="2025-12-01",
        body="# Changelog writer\n\nSuperseded: use release notes instead.\n",
        lock={},
    ),
    _skill(
        "incident-review",
        "global",
        "Run a blameless incident review after an outage.",
        lifecycle="draft",
        quality=None,
        tags=["ops"],
        personas=["manager"],
        usage=_usage(0),
        last_change="2026-10-30",
        links=[{"type": "derives_from", "target": "release-notes"}],
    ),
    _skill(
        "hello",
        "seed",
        "A first skill to check that the exobrain works.",
        quality=0.4,
        tags=["starter"],
        usage=_usage(2),
        last_change="2026-01-05",
    ),
    _skill(
        "Odd Name",
        "groups/data",
        "A skill whose name needs a hashed file name.",
        quality=0.2,
        tags=["data"],
        usage=_usage(1),
        last_change="2026-02-02",
        links=[
            {"type": "uses_skill", "target": "csv-clean@groups/data"},
            {"type": "uses_skill", "target": "missing-skill"},
        ],
    ),
    _skill(
        "hostile-content",
        "groups/sandbox",
        "<script>document.title='PWNED'</script> Tries to run script "
        '<img src=x onerror="window.__pwned=20">.',
        owner='<b onmouseover="window.__pwned=21">mallory</b>',
        version='"><script>window.__pwned=22</script>',
        tags=["<img src=x onerror=window.__pwned=23>", "security"],
        personas=['"><svg onload=window.__pwned=24>'],
        triggers=["javascript:window.__pwned=25"],
        body=HOSTILE_BODY,
        quality=0.1,
        frontmatter={
            "name": "hostile-content",
            "description": "<script>window.__pwned=26</script>",
            "metadata": {"x": "</code><script>window.__pwned=27</script>"},
        },
        files=[
            {
                "path": "<script>window.__pwned=28</script>.md",
                "size": 1,
                "sha256": '"><img src=x onerror=window.__pwned=29>',
            }
        ],
        lock={"state": "<script>window.__pwned=30</script>", "note": "<i onclick=x>"},
        declarations=[
            {
                "scope": "groups/sandbox",
                "kind": "declaration",
                "note": '<svg onload="window.__pwned=31">',
            }
        ],
        signals={
            "summary": {"<script>x</script>": "<script>window.__pwned=32</script>"},
            "timeline": [
                {"date": '"><script>window.__pwned=33</script>', "up": 1, "down": 1, "uses": 3}
            ],
        },
        links=[{"type": "uses_skill", "target": "javascript:window.__pwned=34"}],
    ),
]


def demo_data() -> dict[str, Any]:
    """A fresh deep copy of the demo catalog (callers may mutate it)."""
    return copy.deepcopy(
        {
            "site": {
                "title": "Demo exobrain",
                "generated_at": "2026-11-01",
                "repo": "acme/exobrain",
            },
            "scopes": SCOPES,
            "skills": _SKILLS,
        }
    )
