"""What the status commands show: resolved rows and the repo-wide catalog, with descriptions.

Descriptions come from each skill's SKILL.md through the fast reader; a skill whose SKILL.md
is missing or broken still gets a row (with an empty description) and, when it is broken, a
warning — ``skills-validate`` is where those problems are reported in full, as errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from exobrain.errors import InputFileError
from exobrain.findings import WARNING, Finding, from_error
from exobrain.model import EXTERNAL, GLOBAL
from exobrain.paths import shown
from exobrain.registry import Registry
from exobrain.resolve import Resolved
from exobrain.scopes import SEED
from exobrain.skillmd import SKILL_FILE, quick_meta
from exobrain.treecache import paused_gc
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
        value = quick_meta(path, ("description",)).get("description")
    except InputFileError as exc:
        if problems is not None and path.is_file():
            problems.append(unreadable_skill(root, path, exc.message))
        return ""
    return value if isinstance(value, str) else ""


def descriptions(ws: Workspace, skills: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(home, name) → description for in-tree skills: from disk, or from git's objects (in
    one batch) for the ones a sparse checkout leaves out; "" when unreadable."""
    found: dict[tuple[str, str], str] = {}
    elsewhere: list[tuple[str, str]] = []
    for home, name in skills:
        if home == EXTERNAL:
            found[(home, name)] = ""
        elif ws.reads_committed(home, name):
            elsewhere.append((home, name))
        else:
            found[(home, name)] = description_of(ws.root, home, name, ws.findings)
    if elsewhere:
        committed = ws.sparse.committed_descriptions(elsewhere)
        for key in elsewhere:
            found[key] = committed.get(key, "")
    return found


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
    skills: list[Resolved], ws: Workspace, tier: str | None = None, *, everything: bool = False
) -> list[StatusRow]:
    """Rows with descriptions: ``tier`` picks one tier, else every row (``everything``) or
    the ones worth listing. A SKILL.md that cannot be read is a warning in ``ws.findings``."""
    chosen = [s for s in skills if (s.tier == tier if tier else everything or is_worth_listing(s))]
    text = descriptions(ws, [(s.home, s.name) for s in chosen])
    rows = [StatusRow(s, text[(s.home, s.name)]) for s in chosen]
    return sorted(rows, key=lambda r: (r.skill.name, r.skill.home))


class CatalogRow(NamedTuple):
    """One declaration as the catalog lists it (a tuple: a catalog holds every declaration
    of the repository, hundreds of thousands in a big one)."""

    name: str
    registry: str  # the scope whose skills.json declares it
    owner: str | None
    tier: str
    force: bool
    lifecycle: str
    source: Any
    agent: str | None
    skip_agents: tuple[str, ...]
    description: str = ""

    @property
    def scope(self) -> str:
        return EXTERNAL if self.source else self.registry

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "registry": self.registry,
            "owner": self.owner,
            "tier": self.tier,
            "force": self.force,
            "lifecycle": self.lifecycle,
            "source": self.source,
            "agent": self.agent,
            "skipAgents": list(self.skip_agents),
            "description": self.description,
        }


def _declared(registry: Registry) -> list[tuple[Any, ...]]:
    """The registry's declarations as row tuples without a description, straight from its
    parsed JSON when it is known to be valid (no entry objects made)."""
    scope = registry.scope
    raw = registry.valid_raw()
    if raw is None:
        return [
            (e.name, scope, e.owner, e.tier, e.force, e.lifecycle, e.source, e.agent, e.skip_agents)
            for e in registry.entries
            if not e.is_override
        ]
    return [
        (
            d["name"],
            scope,
            d.get("owner"),
            d["tier"],
            d.get("force") is True,
            d.get("lifecycle", "active"),
            d.get("source"),
            d.get("agent"),
            tuple(d.get("skipAgents") or ()),
        )
        for d in raw
        if "from" not in d
    ]


def catalog_rows(ws: Workspace, tier: str | None = None) -> list[CatalogRow]:
    """Every declaration in the repository (seed/ left out), for discovery, by name; of
    ``tier`` only, when given."""
    with paused_gc():
        declared = [
            row
            for registry in ws.all_registries(include_seed=False)
            if registry.scope != SEED
            for row in _declared(registry)
        ]
        homes = [(EXTERNAL if row[6] else row[1], row[0]) for row in declared]
        text = descriptions(ws, homes)
        make = CatalogRow._make
        rows = [make((*row, text[home])) for row, home in zip(declared, homes, strict=True)]
        rows.sort(key=itemgetter(0, 1))
    return rows if tier is None else [r for r in rows if r.tier == tier]


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
