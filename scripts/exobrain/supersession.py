"""Collecting ``links.supersedes`` from the SKILL.md files of the chain's skills.

Only skills declared in the chain can be successors (a successor must be visible to be linked),
so only their SKILL.md files are read, and only files that mention ``supersedes`` are parsed
as YAML: resolution stays cheap on large repositories.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .errors import ExobrainError
from .fileio import read_text
from .refs import parse_ref, ref_identity
from .registry import Entry
from .scopes import GLOBAL
from .skillmd import SKILL_FILE, links_of, parse

Identity = tuple[str, ...]


def supersedes_edges(root: Path, chain_entries: Iterable[Entry]) -> dict[Identity, list[Identity]]:
    """NEW identity → the identities its SKILL.md says it supersedes."""
    declarations = [e for e in chain_entries if not e.is_override]
    edges: dict[Identity, list[Identity]] = {}
    seen: set[Identity] = set()
    base = os.fspath(root)
    for entry in declarations:
        if entry.source is not None or entry.identity in seen:
            continue
        seen.add(entry.identity)
        home = "" if entry.scope == GLOBAL else entry.scope
        raw = os.path.join(base, home, "skills", entry.name, SKILL_FILE)
        try:  # a plain byte scan first: most skills supersede nothing
            with open(raw, "rb") as handle:
                if b"supersedes" not in handle.read():
                    continue
        except OSError:
            continue
        path = Path(raw)
        try:
            refs = links_of(parse(read_text(path), path).meta, "supersedes")
        except ExobrainError:
            continue  # unreadable SKILL.md files are reported by skills-validate
        targets = []
        for text_ref in refs:
            try:
                target = ref_identity(parse_ref(text_ref), declarations)
            except ExobrainError:
                continue
            if target is not None and target != entry.identity:
                targets.append(target)
        if targets:
            edges[entry.identity] = targets
    return edges
