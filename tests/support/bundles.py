"""Fixture sources for the import/export tests, built on the spot (no network, no downloads)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.helpers import build_tree, exobrain

KDENSE_RDKIT = """---
name: rdkit
description: Cheminformatics with RDKit. Use for molecules, SMILES parsing and descriptors.
license: MIT license
allowed-tools: [Read, Write, Bash]
metadata:
    skill-author: K-Dense Inc.
    version: "1.4"
---
# RDKit

Parse SMILES with `Chem.MolFromSmiles`.
"""

KDENSE_PUBMED = """---
name: pubmed-database
description: Search PubMed: find papers, abstracts and MeSH terms for a query
category: databases
metadata:
    skill-author: K-Dense Inc.
    tags: [literature, biomedical]
    authors: [Ann, Bob]
---
# PubMed

Query the E-utilities.
"""

KDENSE_WEIRD = """---
name: Weird Name!
description: A skill whose name is not a slug and does not match its folder.
---
Body of the weird one.
"""

LONG_DESCRIPTION = "Use this for long things. " * 60

CLAUDE_REVIEW = """---
name: review
description: Reviews the current diff for bugs. Use when the user asks for a code review.
allowed-tools:
  - Read
  - Bash(git diff:*)
model: sonnet
disable-model-invocation: true
user-invocable: false
argument-hint: "[file]"
context: fork
agent: Explore
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: echo checked
paths:
  - src/**
when_to_use: When a pull request is ready for review.
---
# Review

Read the diff, then report.
"""


def kdense_bundle(root: Path) -> Path:
    """A K-Dense-style bundle: a marketplace file listing skills under scientific-skills/, four
    good (some needing repairs) and four broken skills."""
    skills = {
        "rdkit": {
            "SKILL.md": KDENSE_RDKIT,
            "references": {"api.md": "# API\n" * 50},
            "scripts": {"run.py": "print('rdkit')\n"},
            "__pycache__": {"run.cpython-311.pyc": b"\x00junk"},
        },
        "pubmed-database": {"SKILL.md": KDENSE_PUBMED, "assets": {"query.json": '{"q": 1}\n'}},
        "weird_folder": {"SKILL.md": KDENSE_WEIRD},
        "long-desc": {
            "SKILL.md": f"---\nname: long-desc\ndescription: {LONG_DESCRIPTION}\n---\nLong.\n"
        },
        "broken-yaml": {
            "SKILL.md": "---\nname: broken-yaml\ndescription: [unclosed\n  - x: y\n---\nB\n"
        },
        "no-description": {"SKILL.md": "---\nname: no-description\n---\nNothing.\n"},
        "latin1": {"SKILL.md": "---\nname: latin1\ndescription: caf\xe9\n---\n".encode("latin-1")},
        "escaping-link": {
            "SKILL.md": "---\nname: escaping-link\ndescription: Has a bad link.\n---\nx\n"
        },
    }
    build_tree(root, {"scientific-skills": skills})
    os.chmod(root / "scientific-skills/rdkit/scripts/run.py", 0o755)
    os.symlink("../../../../etc/passwd", root / "scientific-skills/escaping-link/passwd")
    listed = [f"./scientific-skills/{name}" for name in sorted(skills)]
    build_tree(
        root,
        {
            ".claude-plugin/marketplace.json": {
                "name": "claude-scientific-skills",
                "owner": {"name": "K-Dense"},
                "plugins": [
                    {
                        "name": "scientific-skills",
                        "source": "./",
                        "strict": False,
                        "keywords": ["science"],
                        "version": "2.0.0",
                        "skills": listed,
                    }
                ],
            }
        },
    )
    return root


def claude_skill(root: Path) -> Path:
    """A Claude Code skill folder with its extra fields."""
    return build_tree(
        root / "review", {"SKILL.md": CLAUDE_REVIEW, "checklist.md": "- tests\n- docs\n"}
    )


def target_repo(tmp_path: Path, **connection) -> Path:
    """An exobrain with a person scope people/al (connected) and a group scope groups/lab."""
    return exobrain(
        tmp_path / "exo",
        scopes=["people/al", "groups/lab"],
        connection={"connected_scopes": ["people/al"], "person": "al", **connection},
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (outside .git) with its bytes, links as their target."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[rel] = b"-> " + os.readlink(path).encode()
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel + "/"] = b""
    return found


def lock_of(root: Path, scope: str) -> dict:
    return json.loads((root / scope / "skills.lock.json").read_text())["skills"]
