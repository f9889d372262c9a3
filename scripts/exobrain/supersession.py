"""Collecting ``links.supersedes`` from the SKILL.md files of the chain's skills.

Only skills declared in the chain can be successors (a successor must be visible to be linked),
so only their SKILL.md files are read, and only files that mention ``supersedes`` are parsed
as YAML: resolution stays cheap on large repositories. A caller that already holds every
frontmatter (search, through its index) passes a reader instead, and no file is opened.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from exobrain.errors import ExobrainError
from exobrain.util.fileio import read_text
from exobrain.refs import parse_ref, ref_identity
from exobrain.registry import Entry
from exobrain.scopes import GLOBAL
from exobrain.skillmd import SKILL_FILE, links_of, parse

Identity = tuple[str, ...]
#: Reads the ``links.supersedes`` refs of an in-tree declaration's SKILL.md (None: none).
LinksReader = Callable[[Entry], "list[str] | None"]


def supersedes_edges(root: Path, chain_entries: Iterable[Entry],
                     read: LinksReader | None = None) -> dict[Identity, list[Identity]]:
    """NEW identity → the identities its SKILL.md says it supersedes (``read`` replaces the
    file reads)."""
    read = read or _file_reader(root)
    declarations = [e for e in chain_entries if not e.is_override]
    edges: dict[Identity, list[Identity]] = {}
    seen: set[Identity] = set()
    for entry in declarations:
        if entry.source is not None or entry.identity in seen:
            continue
        seen.add(entry.identity)
        refs = read(entry)
        if not refs:
            continue
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


def _file_reader(root: Path) -> LinksReader:
    base = os.fspath(root)

    def read(entry: Entry) -> list[str] | None:
        home = "" if entry.scope == GLOBAL else entry.scope
        raw = os.path.join(base, home, "skills", entry.name, SKILL_FILE)
        try:  # a plain byte scan first: most skills supersede nothing
            with open(raw, "rb") as handle:
                if b"supersedes" not in handle.read():
                    return None
        except OSError:
            return None
        path = Path(raw)
        try:
            return links_of(parse(read_text(path), path).meta, "supersedes")
        except ExobrainError:
            return None  # unreadable SKILL.md files are reported by skills-validate

    return read
