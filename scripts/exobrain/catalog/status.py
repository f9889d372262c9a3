"""The status view: the skills a connection resolves, as rows with their descriptions, and
the ``<available_skills>`` block of the Agent Skills tooling (``skills-status``)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from exobrain.model import Identity
from exobrain.paths import skill_dir
from exobrain.resolve import Resolved
from exobrain.skillmd import SKILL_FILE
from exobrain.util.terminal import safe_line, safe_text
from exobrain.workspace import Workspace


@dataclass(frozen=True)
class StatusRow:
    skill: Resolved
    description: str
    why: str = ""  # the reason in words, for every row that is off too

    @property
    def scope(self) -> str:
        """The scope that declares it (an external skill's too: where it is declared, not
        the word "external")."""
        s = self.skill
        return s.declaration.scope if s.is_external and s.declaration else s.home

    def as_json(self) -> dict[str, Any]:
        s = self.skill
        return {
            "name": s.name,
            "scope": self.scope,
            "external": s.is_external,
            "owner": s.owner,
            "tier": s.tier,
            "declared_by": s.declared_by,
            "lifecycle": s.lifecycle,
            "note": self.why,
            "link_name": s.link_name,
            "description": self.description,
        }


def reason(skill: Resolved, my_ids: frozenset[str]) -> str:
    """Why a skill stands as it does, in words; for an ``off`` one nobody decided on, why it
    does not reach you (it is someone else's and not forced)."""
    if skill.note or skill.tier != "off":
        return skill.note
    declaration = skill.declaration
    if declaration is None:
        return "declaration not found"
    if not declaration.force and declaration.owner not in my_ids:
        mine = ", ".join(sorted(my_ids)) or "a guest"
        return f"not forced, and its owner {declaration.owner} is not you ({mine})"
    return ""


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
    keys = [Identity(s.home, s.name) for s in chosen]
    text = ws.descriptions(keys)
    ids = ws.my_ids
    rows = [StatusRow(s, text[k], reason(s, ids)) for s, k in zip(chosen, keys, strict=True)]
    return sorted(rows, key=lambda r: (r.skill.name, r.skill.home))


def prompt_block(ws: Workspace, rows: list[StatusRow]) -> str:
    """The ``<available_skills>`` block of the Agent Skills reference tooling (what came
    from files shown through the one output filter: it is printed to a terminal too)."""
    parts = ["<available_skills>"]
    for row in rows:
        location = skill_dir(ws.root, row.skill.home, row.skill.name) / SKILL_FILE
        if not location.is_file():
            continue
        parts += [
            "<skill>",
            "<name>",
            safe_line(escape(row.skill.name)),
            "</name>",
            "<description>",
            safe_text(escape(row.description)),
            "</description>",
            "<location>",
            safe_line(escape(str(location))),
            "</location>",
            "</skill>",
        ]
    parts.append("</available_skills>")
    return "\n".join(parts)
