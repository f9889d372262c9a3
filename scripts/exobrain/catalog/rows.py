"""The catalog's rows: every declaration of the repository, each with its description, as
``skills-status --all`` lists them (seed/ left out).

A row is a tuple, not an object: a catalog holds every declaration of the repository,
600,000 of them at 100,000 people. A SKILL.md that is missing or broken still gives its
declaration a row (with an empty description) and, when it is broken, a warning;
``skills-validate`` is where those problems are reported in full, as errors.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, NamedTuple

from exobrain.model import EXTERNAL, Identity
from exobrain.registry.entries import Registry
from exobrain.scopes import SEED
from exobrain.util.gcpause import paused_gc
from exobrain.workspace import Workspace


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
        key = Identity._make  # (a million of them at 100,000 people: the fast constructor)
        homes = [key((EXTERNAL if row[6] else row[1], row[0], "")) for row in declared]
        text = ws.descriptions(homes)
        make = CatalogRow._make
        rows = [make((*row, text[home])) for row, home in zip(declared, homes, strict=True)]
        rows.sort(key=itemgetter(0, 1))
    return rows if tier is None else [r for r in rows if r.tier == tier]
