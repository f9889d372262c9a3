"""Declarations that can reach no one: ``skills-validate``'s word for a silent non-reach.

A declaration contributes its tier only when it is forced or its ``owner`` is a self id of the
connection (:mod:`exobrain.resolve`). Self ids come from the person scopes of a chain (or the
``person`` of a machine's connection file), so a declaration that is not forced and whose owner
is nobody who can have the declaring scope in their chain resolves ``off`` for everyone —
typically an external skill declared in one's own scope with the upstream's name as its owner
(``owner: anthropic``). Nothing is wrong with the file, so it is an info, with the fix.

Only person and host scopes are judged: who connects to ``people/<id>`` (or one of its hosts)
has ``<id>`` as a self id, so an owner who is not that person reaches no one there. A shared
scope is judged by nobody's id in particular (a machine's connection may name any ``person``),
and its declarations are opted into with overrides.
"""

from __future__ import annotations

from exobrain.findings import INFO, Finding
from exobrain.model import Identity
from exobrain.registry.entries import REGISTRY_FILE, Registry
from exobrain.workspace import Workspace


def unreached_findings(ws: Workspace, registries: list[Registry]) -> list[Finding]:
    """An info per declaration that is not forced, that no override opts anyone into, and
    whose owner nobody who can connect to its scope is (one pass over the raw entries)."""
    types = {s.path: s.type for s in ws.scan().scopes}
    opted = {identity for r in registries for _, identity in r.overridden()}
    found: list[Finding] = []
    for registry in registries:
        if types.get(registry.scope) not in ("person", "host"):
            continue
        person = _person_of(registry.scope, types)
        raw = registry.valid_raw()  # known-valid registries: no entry objects made
        for index, identity in registry.declared():
            if raw is not None:
                forced, owner = raw[index].get("force") is True, raw[index].get("owner")
            else:
                entry = registry.entry(index)
                forced, owner = entry.force, entry.owner
            if forced or owner == person or identity in opted:
                continue
            found.append(_finding(registry, index, identity, owner, person))
    return found


def _person_of(path: str, types: dict[str, str]) -> str:
    """The person of a person or host scope: the name of the nearest person scope at or
    above ``path`` (``groups/acme/people/alex/hosts/laptop`` → ``alex``)."""
    parts = path.split("/")
    for end in range(len(parts), 0, -1):
        if types.get("/".join(parts[:end])) == "person":
            return parts[end - 1]
    return parts[-1]


def _finding(
    registry: Registry, index: int, identity: Identity, owner: object, person: str
) -> Finding:
    scope, name = registry.scope, identity.name
    rel = f"{scope}/{REGISTRY_FILE}"
    why = (
        " (an external skill's owner names its upstream, not a person)"
        if identity.is_external
        else ""
    )
    return Finding(
        INFO,
        "unreached",
        rel,
        f"{name!r} reaches no one: it is not forced, no override opts anyone in, and its "
        f"owner {owner!r} is not {person!r}, whose scope this is{why}; force it "
        f"(skills-promote {name} --in {scope} --force) or make the owner {person!r}",
        entry=f"#{index} {name}",
        line=registry.line_of(index),
    )
