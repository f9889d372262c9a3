"""What the status commands show: resolved rows and the repo-wide catalog, with descriptions.

Descriptions come from each skill's SKILL.md through the fast reader; a skill whose SKILL.md
is missing or broken still gets a row (with an empty description) and, when it is broken, a
warning — ``skills-validate`` is where those problems are reported in full, as errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.findings import WARNING, Finding, from_error
from exobrain.model import EXTERNAL, GLOBAL
from exobrain.paths import shown
from exobrain.registry import Entry
from exobrain.resolve import Resolved
from exobrain.scopes import SEED
from exobrain.skillmd import SKILL_FILE, quick_meta
from exobrain.workspace import Workspace


def skill_dir(root: Path, home: str, name: str) -> Path:
    """Where an in-tree skill lives: ``<home>/skills/<name>``."""
    return (root if home == GLOBAL else root / home) / "skills" / name


def description_of(root: Path, home: str, name: str, problems: list[Finding] | None = None) -> str:
    """The full description from the skill's SKILL.md, or "" when it cannot be read (then,
    when the file is there, a warning goes to ``problems``)."""
    if home == EXTERNAL:
        return ""
    path = skill_dir(root, home, name) / SKILL_FILE
    try:
        value = quick_meta(path).get("description")
    except InputFileError as exc:
        if problems is not None and path.is_file():
            problems.append(unreadable_skill(root, path, exc.message))
        return ""
    return value if isinstance(value, str) else ""


def unreadable_skill(root: Path, path: Path, message: str) -> Finding:
    """The warning a reading command gives for a SKILL.md it skipped (skills-validate
    reports the same problem as an error)."""
    return from_error(
        "skill-unreadable", shown(path, root), message, path, level=WARNING, bad_input=False
    )


@dataclass(frozen=True)
class StatusRow:
    skill: Resolved
    description: str

    def as_json(self) -> dict[str, Any]:
        s = self.skill
        return {
            "name": s.name,
            "scope": s.home,
            "owner": s.owner,
            "tier": s.tier,
            "declared_by": s.declared_by,
            "lifecycle": s.lifecycle,
            "note": s.note,
            "link_name": s.link_name,
            "description": self.description,
        }


def is_worth_listing(skill: Resolved) -> bool:
    """On skills, and off ones somebody decided on (an override, a lifecycle, an agent filter).

    A plain non-forced declaration of someone else is off by design; listing every one of them
    would bury what reaches you (``skills-status --all`` is the catalog for those).
    """
    return skill.tier != "off" or skill.decided_by is not None or bool(skill.note)


def status_rows(
    skills: list[Resolved],
    root: Path,
    tier: str | None = None,
    *,
    everything: bool = False,
    problems: list[Finding] | None = None,
) -> list[StatusRow]:
    """Rows with descriptions: ``tier`` picks one tier, else every row (``everything``) or
    the ones worth listing. A SKILL.md that cannot be read is a warning in ``problems``."""
    chosen = [s for s in skills if (s.tier == tier if tier else everything or is_worth_listing(s))]
    rows = [StatusRow(s, description_of(root, s.home, s.name, problems)) for s in chosen]
    return sorted(rows, key=lambda r: (r.skill.name, r.skill.home))


@dataclass(frozen=True)
class CatalogRow:
    entry: Entry
    description: str

    def as_json(self) -> dict[str, Any]:
        e = self.entry
        return {
            "name": e.name,
            "scope": EXTERNAL if e.source else e.scope,
            "registry": e.scope,
            "owner": e.owner,
            "tier": e.tier,
            "force": e.force,
            "lifecycle": e.lifecycle,
            "source": e.source,
            "agent": e.agent,
            "skipAgents": list(e.skip_agents),
            "description": self.description,
        }


def catalog_rows(ws: Workspace) -> list[CatalogRow]:
    """Every declaration in the repository (seed/ left out), for discovery."""
    rows = []
    for registry in ws.all_registries(include_seed=False):
        for entry in registry.entries:
            if entry.is_override or registry.scope == SEED:
                continue
            home = EXTERNAL if entry.source else entry.scope
            rows.append(CatalogRow(entry, description_of(ws.root, home, entry.name, ws.findings)))
    return sorted(rows, key=lambda r: (r.entry.name, r.entry.scope))


def prompt_block(ws: Workspace, rows: list[StatusRow]) -> str:
    """The ``<available_skills>`` block of the Agent Skills reference tooling."""
    parts = ["<available_skills>"]
    for row in rows:
        location = skill_dir(ws.root, row.skill.home, row.skill.name) / SKILL_FILE
        if not location.is_file():
            continue
        parts += [
            "<skill>",
            "<name>",
            escape(row.skill.name),
            "</name>",
            "<description>",
            escape(row.description),
            "</description>",
            "<location>",
            escape(str(location)),
            "</location>",
            "</skill>",
        ]
    parts.append("</available_skills>")
    return "\n".join(parts)
