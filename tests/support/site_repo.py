"""A real exobrain for the site tests: shared and personal scopes, a lock (one skill drifted
since), signals, links both ways, an external declaration and a hostile skill."""

from __future__ import annotations

from pathlib import Path

from exobrain.artifacts.register import lock_all
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, git, skill_md
from tests.support.signal_helpers import sig, write

HOSTILE_BODY = """# Hostile content

<script>window.__pwned = 1; document.title = "PWNED";</script>
<img src="x" onerror="window.__pwned = 2">
<a href="javascript:window.__pwned=3">raw html link</a>

- [click me](javascript:window.__pwned=4)
- [click me too](JaVaScRiPt:window.__pwned=5)
- [data url](data:text/html,<script>window.__pwned=8</script>)
- ![image](javascript:window.__pwned=9)
- [reference link][evil]
- [encoded](%6Aavascript:window.__pwned=13)
- [safe link](https://example.org/docs) and [a skill](skill:pdf-tools)

[evil]: javascript:window.__pwned=12
"""

PDF_BODY = """# PDF tools

Use `pdftotext` first; fall back to OCR.

## Steps

1. Run the [extract script](scripts/extract.py).
2. See [the steps](#steps) and [upstream](https://example.org/pdf).
"""

#: The skills the default (shared) site lists, by name.
SHARED = [
    "changelog-writer",
    "hostile-content",
    "ligand-dock",
    "pdf-tools",
    "release-notes",
    "skill-creator",
]
#: The person scope's skill, listed only with --all-scopes.
PERSONAL = "alice-notes"


def site_repo(root: Path) -> Path:
    """The exobrain (committed, locked, then one skill edited so its lock drifts)."""
    exobrain(
        root,
        scopes=["groups/science", "teams/platform", "people/alice"],
        registries={
            "global": [
                {"name": "pdf-tools", "owner": "alex", "tier": "always", "force": True},
                {
                    "name": "skill-creator",
                    "owner": "anthropic",
                    "tier": "optional",
                    "source": {
                        "repo": "https://github.com/anthropics/skills",
                        "path": "skills/skill-creator",
                        "ref": "main",
                    },
                },
            ],
            "groups/science": [
                {"name": "ligand-dock", "owner": "cy", "tier": "optional"},
            ],
            "teams/platform": [
                {"name": "release-notes", "owner": "bo", "tier": "optional"},
                {
                    "name": "changelog-writer",
                    "owner": "bo",
                    "tier": "optional",
                    "lifecycle": "deprecated",
                },
                {"name": "hostile-content", "owner": "mallory", "tier": "optional"},
                {"name": "pdf-tools", "from": "global", "tier": "off"},
            ],
            "people/alice": [
                {"name": PERSONAL, "owner": "alice", "tier": "always"},
                {"name": "ligand-dock", "from": "groups/science", "tier": "always"},
            ],
        },
        skills={
            "global/pdf-tools": skill_md(
                "pdf-tools",
                "Extract text and tables from PDF files.",
                PDF_BODY,
                version="1.0.0",
                tags="[documents, ops]",
                personas="[analyst]",
                triggers='["extract text from a pdf"]',
            ),
            "groups/science/ligand-dock": skill_md(
                "ligand-dock",
                "Dock a ligand into a protein pocket.",
                "# Ligand docking\n\nPrepare the receptor, then dock the ligand.\n",
                version="0.2.0",
                tags="[science]",
                personas="[researcher]",
                triggers='["molecular docking"]',
                links="{uses_skill: [skill:pdf-tools@global]}",
            ),
            "teams/platform/release-notes": skill_md(
                "release-notes",
                "Write release notes from merged pull requests.",
                "# Release notes\n\nCollect the merged pull requests.\n",
                version="2.0.0",
                tags="[writing, ops]",
                links="{supersedes: [changelog-writer]}",
            ),
            "teams/platform/changelog-writer": skill_md(
                "changelog-writer",
                "Old way to write a changelog.",
                version="1.0.0",
                tags="[writing]",
            ),
            "teams/platform/hostile-content": skill_md(
                "hostile-content",
                "Tries to run script <script>window.__pwned=20</script>.",
                HOSTILE_BODY,
                version="1.0.0",
                tags='["<img src=x onerror=window.__pwned=23>"]',
            ),
            "people/alice/alice-notes": skill_md(
                PERSONAL, "Alice's private notes.", version="1.0.0"
            ),
        },
    )
    (root / "skills/pdf-tools/scripts").mkdir()
    (root / "skills/pdf-tools/scripts/extract.py").write_text("print('extract')\n")
    lock_all(open_workspace(root))
    # the voters are persons of the repository (a ledger of anyone else never counts)
    build_tree(root, {f"people/{p}/AGENTS.md": f"# {p}\n" for p in ("alex", "bo")})
    write(
        root,
        [
            sig("vote", "skill:pdf-tools@global", 1, 3, by="alex"),
            sig("vote", "skill:pdf-tools@global", 1, 10, by="bo"),
            sig("usage", "skill:pdf-tools@global", 1, 2, by="alex"),
            sig("usage", "skill:pdf-tools@global", 1, 1, by="alex"),
            sig("vote", "skill:changelog-writer@teams/platform", -1, 5, by="bo"),
        ],
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "locks and signals")
    release = root / "teams/platform/skills/release-notes/SKILL.md"
    release.write_text(release.read_text() + "\nAn edit after the lock.\n")
    return root
