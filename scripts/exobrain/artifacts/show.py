"""Everything known about one skill, gathered for ``exobrain show``.

Read-only: the declaration(s) and overrides across the repository, the SKILL.md frontmatter,
how it resolves for this connection, the state of its lock entry, and its links in both
directions. (Its quality comes from the signals family; the command adds it.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from exobrain.artifacts.lockfile import drift, read_lock, version_problem
from exobrain.errors import ExobrainError
from exobrain.model import EXTERNAL
from exobrain.paths import shown, skill_dir
from exobrain.refs import SkillRef, canonical, entry_home, parse_ref
from exobrain.registry.entries import Entry
from exobrain.skillmd import (
    SKILL_FILE,
    as_list,
    links_of,
    parse,
    read_skill,
    skill_text,
    toolkit_field,
)
from exobrain.util.jsonsafe import json_safe
from exobrain.workspace import Workspace, find_declaration

LINK_PREDICATES = ("uses_tool", "uses_skill", "derives_from", "documents_artifact", "supersedes")


def entry_json(entry: Entry, root: Path) -> dict[str, Any]:
    data = {
        "registry": shown(
            (root if entry.scope == "global" else root / entry.scope) / "skills.json", root
        ),
        "index": entry.index,
        "tier": entry.tier,
    }
    for key, value in (
        ("owner", entry.owner),
        ("from", entry.origin),
        ("force", entry.force),
        ("agent", entry.agent),
        ("lifecycle", None if entry.is_override else entry.lifecycle),
    ):
        if value not in (None, False):
            data[key] = value
    if entry.skip_agents:
        data["skipAgents"] = list(entry.skip_agents)
    return data


def describe_skill(ws: Workspace, text_ref: str) -> dict[str, Any]:
    """The facts ``exobrain show`` prints, as one JSON-ready mapping."""
    declaration = find_declaration(ws, parse_ref(text_ref))
    identity = declaration.identity
    home = entry_home(declaration)
    registries = ws.all_registries()
    entries = [e for r in registries for e in r.entries if e.identity == identity]
    facts: dict[str, Any] = {
        "ref": canonical(declaration),
        "name": declaration.name,
        "home": home,
        "owner": declaration.owner,
        "lifecycle": declaration.lifecycle,
        "declarations": [entry_json(e, ws.root) for e in entries if not e.is_override],
        "overrides": [entry_json(e, ws.root) for e in entries if e.is_override],
    }
    row = next((r for r in ws.resolve() if r.identity == identity), None)
    facts["resolved"] = (
        {"tier": row.tier, "decided_by": row.declared_by, "note": row.note}
        if row
        else {"tier": "off", "decided_by": "-", "note": "not in your connected chain"}
    )
    if declaration.source:
        facts["source"] = declaration.source
        facts["frontmatter"] = {}
        facts["lock"] = {"state": "external", "detail": "fetched from its source, not locked"}
        facts["links"] = {}
    else:
        path = skill_dir(ws.root, declaration.scope, declaration.name) / SKILL_FILE
        facts["path"] = shown(path, ws.root)
        meta = read_skill(path).meta
        facts["frontmatter"] = json_safe(meta)  # (dates, !!binary, !!set: printable)
        facts["version"] = json_safe(toolkit_field(meta, "version"))
        facts["lock"] = lock_state(ws, declaration, toolkit_field(meta, "version"))
        links = meta.get("links")
        if not isinstance(links, dict):
            links = {}
        facts["links"] = {
            p: links_of(meta, p)
            if p in ("uses_skill", "derives_from", "supersedes")
            else json_safe(as_list(links.get(p)))
            for p in LINK_PREDICATES
            if links.get(p)
        }
    facts["linked_from"] = incoming_links(ws, declaration)
    return facts


def lock_state(ws: Workspace, entry: Entry, version: Any) -> dict[str, Any]:
    """The lock entry of an in-tree skill: ``fresh`` (the folder is what the locked version
    says), ``stale`` (content or version moved on: exobrain lock, or register --bump),
    ``missing`` (versioned but not locked) or ``unversioned`` (no version: nothing to lock)."""
    locked = read_lock(ws.root, entry.scope)["skills"].get(entry.name)
    folder = skill_dir(ws.root, entry.scope, entry.name)
    if version is None:
        state = "stale" if locked else "unversioned"
        detail = "the lock records a version, SKILL.md has none" if locked else "no version"
        return {"state": state, "detail": detail}
    if locked is None:
        return {"state": "missing", "detail": "not locked: run exobrain lock"}
    found = drift(folder, locked)
    problem = version_problem(str(version), locked, found, shown(folder, ws.root))
    if problem:
        return {"state": "stale", "locked": locked["version"], "detail": problem}
    if str(version) != locked["version"] or found.any:
        detail = f"locked {locked['version']}, now {version}: run exobrain lock"
        return {"state": "stale", "locked": locked["version"], "detail": detail}
    return {"state": "fresh", "locked": locked["version"], "hash": locked["hash"], "detail": ""}


def incoming_links(ws: Workspace, target: Entry) -> dict[str, list[str]]:
    """Who supersedes, derives from or uses this skill (refs naming it, by home or by name)."""
    found: dict[str, list[str]] = {}
    for registry in ws.all_registries():
        for entry in registry.entries:
            if entry.is_override or entry.source or entry.identity == target.identity:
                continue
            path = skill_dir(ws.root, entry.scope, entry.name) / SKILL_FILE
            try:
                text = skill_text(path)
                if target.name not in text:
                    continue
                meta = parse(text, path).meta
            except ExobrainError:
                continue
            for predicate in ("supersedes", "derives_from", "uses_skill"):
                for text_ref in links_of(meta, predicate):
                    if _names(text_ref, target):
                        found.setdefault(predicate, []).append(canonical(entry))
    return found


def _names(text_ref: str, target: Entry) -> bool:
    try:
        ref: SkillRef = parse_ref(text_ref)
    except ExobrainError:
        return False
    if ref.name != target.name:
        return False
    return ref.home is None or ref.home == (
        f"{EXTERNAL}/{target.owner}" if target.source else target.scope
    )
