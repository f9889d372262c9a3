"""Opting skills in and out without hand-editing JSON: overrides, force, and registry listings.

``skills-promote`` is the everyday way to change what reaches you: an *override* in your own
registry turns a skill declared elsewhere on (any tier) or off, and ``force`` on a declaration
makes it reach everyone whose chain includes its home. Every check happens before the registry
editor writes, so a refused request leaves every file as it was; every change reports what it
did to the file and what it does for the person running it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from exobrain.errors import InputFileError, UsageError
from exobrain.model import EXTERNAL, GLOBAL, Identity, Tier
from exobrain.paths import shown
from exobrain.registry.editor import edit_registry, with_key, without_key
from exobrain.registry.entries import Entry, Registry, registry_from_text
from exobrain.resolve import resolve
from exobrain.scopes import SEED, check_scope_path, scope_at
from exobrain.util.locking import DEFAULT_TIMEOUT
from exobrain.workspace import Workspace

NONE = "(none)"


@dataclass(frozen=True)
class Effect:
    """How one skill resolves for the person running the command, before and after."""

    skill: str  # the link name the agent sees
    before: str
    after: str
    in_chain: bool  # False: the edited registry is not in the connected chain


@dataclass
class Change:
    """What a promote, remove or force request did (or, on a dry run, would do)."""

    file: str
    scope: str
    action: str  # added | updated | removed | unchanged
    subject: str  # "override tidy from groups/acme", "declaration tidy (owner acme)"
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    written: bool
    dry_run: bool
    effect: Effect | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.action != "unchanged"

    def summary(self) -> str:
        """The before/after line."""
        if self.action == "unchanged":
            return f"{self.file}: {self.subject}: already {_state(self.after)} (no change)"
        tail = " (dry run: not written)" if self.dry_run else ""
        return (
            f"{self.file}: {self.subject}: {_state(self.before)} → "
            f"{_state(self.after) if self.after is not None else '(removed)'}{tail}"
        )

    def as_json(self) -> dict[str, Any]:
        effect = None
        if self.effect:
            effect = {
                "skill": self.effect.skill,
                "before": self.effect.before,
                "after": self.effect.after,
                "in_chain": self.effect.in_chain,
            }
        return {
            "file": self.file,
            "scope": self.scope,
            "action": self.action,
            "subject": self.subject,
            "before": self.before,
            "after": self.after,
            "written": self.written,
            "dry_run": self.dry_run,
            "effect": effect,
            "notes": self.notes,
        }


def _state(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return NONE
    if "from" in entry:
        return str(entry.get("tier"))
    return f"force {'true' if entry.get('force') else 'false'}"


def real_scope(ws: Workspace, text: str, option: str) -> str:
    """A scope path given on the command line, checked and required to be a real scope."""
    try:
        path = check_scope_path(text)
    except UsageError as exc:
        raise UsageError(f"{option}: {exc.message}") from None
    if scope_at(ws.root, path, ws.config) is None:
        raise UsageError(
            f"{option} {text}: no such scope (no {path}/AGENTS.md under a scope collection)",
            hint="scopes are global, seed, groups/<g>, teams/<t>, "
            "people/<id>, people/<id>/hosts/<h>",
        )
    return path


def target_scope(ws: Workspace, into: str | None) -> str:
    """``--into``, else the connected person scope, else the deepest connected scope."""
    if into is not None:
        return real_scope(ws, into, "--into")
    connected = [s for s in ws.chain.scopes if s.path not in (GLOBAL, SEED)]
    if not connected:
        raise UsageError(
            "you are connected as a guest, so there is no registry of yours to "
            "write: name one with --into SCOPE",
            hint="e.g. --into people/<you>, or connect first (connect-agent AGENT --person <you>)",
        )
    people = [s for s in connected if s.type == "person"]
    mine = [s for s in people if s.name == ws.connection.person]
    return (mine or people or connected)[-1].path


def _origin(text: str) -> str:
    if text.strip() == EXTERNAL:
        return EXTERNAL
    try:
        return check_scope_path(text)
    except UsageError as exc:
        raise UsageError(f"--from: {exc.message}") from None


def find_declaration(ws: Workspace, name: str, origin: str, owner: str | None) -> Entry:
    """The declaration an override of ``name`` from ``origin`` would point at (it must exist)."""
    if origin == EXTERNAL:
        if not owner:
            raise UsageError(
                "--from external needs --owner OWNER: an external skill is known by "
                "its name and owner",
                hint="skills-status --all shows the owner",
            )
        externals = [
            e
            for r in ws.all_registries()
            for e in r.entries
            if not e.is_override and e.source and e.name == name
        ]
        for entry in externals:
            if entry.owner == owner:
                return entry
        others = sorted({e.owner or "" for e in externals})
        known = f" (it is declared with owner {', '.join(others)})" if others else ""
        raise UsageError(
            f"no external skill {name!r} with owner {owner!r} is declared in this exobrain{known}",
            hint="skills-status --all lists every declared skill",
        )
    if owner:
        raise UsageError(
            "--owner goes with --from external only (an in-tree skill is known by its home scope)"
        )
    home = real_scope(ws, origin, "--from")
    registry = ws.registry(home)
    matches = [e for e in registry.entries if not e.is_override and e.name == name]
    in_tree = [e for e in matches if e.source is None]
    if in_tree:
        return in_tree[-1]
    rel = shown(registry.path, ws.root)
    if matches:
        raise UsageError(
            f"{name} in {rel} is an external skill",
            hint=f"use --from external --owner {matches[-1].owner}",
        )
    if registry.findings:
        raise InputFileError(
            f"{rel}: cannot look {name} up: {registry.findings[0].message}",
            hint=f"repair {rel} (skills-validate shows why)",
        )
    raise UsageError(
        f"no skill {name!r} is declared in {rel}",
        hint="skills-status --all lists every declared skill and its home scope",
    )


def _declaration_of(ws: Workspace, identity: Identity) -> Entry | None:
    """The declaration behind an identity, when the repository still holds one."""
    if identity.is_external:
        registries = ws.all_registries()
    elif scope_at(ws.root, identity.home, ws.config) is not None:
        registries = [ws.registry(identity.home)]
    else:
        return None
    found = [
        e for r in registries for e in r.entries if not e.is_override and e.identity == identity
    ]
    return found[-1] if found else None


def _my_view(ws: Workspace, identity: Identity, declaration: Entry | None) -> tuple[str, str]:
    """(link name, tier) of one skill as the workspace's connection resolves it.

    Only that skill's entries are resolved, so the cost does not grow with the registries.
    """
    entries = [e for e in ws.chain_entries() if e.identity == identity]
    outside = {identity: declaration} if declaration is not None else {}
    rows = ws.named(resolve(entries, ws.my_ids, None, outside))
    return (rows[0].link_name, rows[0].tier) if rows else (identity.name, Tier.OFF)


def _effect(
    ws: Workspace,
    identity: Identity,
    declaration: Entry | None,
    scope: str,
    text: str | None,
    before: tuple[str, str],
) -> Effect:
    """Resolve again with the edited registry in place of the one on disk."""
    if text is not None:
        ws.registries[scope] = registry_from_text(ws.root, scope, text)
    link, after = _my_view(ws, identity, declaration)
    return Effect(link, before[1], after, scope in ws.chain.paths)


def promote(
    ws: Workspace,
    name: str,
    origin: str,
    tier: str,
    *,
    owner: str | None = None,
    into: str | None = None,
    dry_run: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Change:
    """Add or update the override ``{name, from, tier[, owner]}`` in the ``into`` registry."""
    origin = _origin(origin)
    declaration = find_declaration(ws, name, origin, owner)
    target = target_scope(ws, into)
    identity = declaration.identity
    before_view = _my_view(ws, identity, declaration)
    entry = {
        "name": name,
        "from": origin,
        **({"owner": owner} if origin == EXTERNAL else {}),
        "tier": tier,
    }
    match = {"name": name, "from": origin, "owner": owner if origin == EXTERNAL else None}
    with edit_registry(ws.root, target, dry_run=dry_run, timeout=timeout) as edit:
        before, after = edit.upsert(entry, **match)
    action = "added" if before is None else ("updated" if before != after else "unchanged")
    change = Change(
        edit.rel,
        target,
        action,
        _override_subject(name, origin, owner),
        before,
        after,
        edit.written,
        dry_run,
    )
    change.effect = _effect(ws, identity, declaration, target, edit.text, before_view)
    if declaration.lifecycle in ("archived", "draft") and tier != "off":
        change.notes.append(
            f"{name} is {declaration.lifecycle}: "
            + (
                "it resolves off whatever the tier"
                if declaration.lifecycle == "archived"
                else "it reaches only its owner"
            )
        )
    return change


def unpromote(
    ws: Workspace,
    name: str,
    origin: str,
    *,
    owner: str | None = None,
    into: str | None = None,
    dry_run: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Change:
    """Delete the override of ``name`` from ``origin`` (it may point at a skill since removed)."""
    origin = _origin(origin)
    if origin == EXTERNAL and not owner:
        raise UsageError("--from external needs --owner OWNER to say which override to remove")
    if origin != EXTERNAL and owner:
        raise UsageError("--owner goes with --from external only")
    target = target_scope(ws, into)
    identity = (
        Identity.external(name, owner or "") if origin == EXTERNAL else Identity(origin, name)
    )
    declaration = _declaration_of(ws, identity)
    before_view = _my_view(ws, identity, declaration)
    subject = _override_subject(name, origin, owner)
    match = {"name": name, "from": origin, "owner": owner if origin == EXTERNAL else None}
    with edit_registry(ws.root, target, dry_run=dry_run, timeout=timeout) as edit:
        removed = edit.remove(**match)
        if not removed:
            raise UsageError(
                f"{edit.rel} holds no {subject}; nothing to remove",
                hint=f"skills-promote --list --into {target} shows its entries",
            )
    change = Change(edit.rel, target, "removed", subject, removed[-1], None, edit.written, dry_run)
    if len(removed) > 1:
        change.notes.append(f"removed {len(removed)} duplicate entries of this override")
    change.effect = _effect(ws, identity, declaration, target, edit.text, before_view)
    return change


def _override_subject(name: str, origin: str, owner: str | None) -> str:
    return f"override {name} from {origin}" + (f" (owner {owner})" if owner else "")


def set_force(
    ws: Workspace,
    name: str,
    home: str,
    force: bool,
    *,
    owner: str | None = None,
    dry_run: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Change:
    """Set (``force=True``) or clear (the key is removed) ``force`` on a declaration in ``home``."""
    home = real_scope(ws, home, "--in")
    with edit_registry(ws.root, home, create=False, dry_run=dry_run, timeout=timeout) as edit:
        found = [
            i
            for i in edit.find(name=name, **{"from": None})
            if owner is None or edit.entries[i].get("owner") == owner
        ]
        if not found:
            who = f" with owner {owner!r}" if owner else ""
            raise UsageError(
                f"{edit.rel} declares no skill {name!r}{who}",
                hint="--in names the scope whose skills.json declares the skill "
                "(skills-status --all shows it)",
            )
        owners = sorted({str(edit.entries[i].get("owner")) for i in found})
        if len(owners) > 1:
            raise UsageError(
                f"{edit.rel} declares {name} {len(found)} times (owners {', '.join(owners)})",
                hint="pick one with --owner OWNER",
            )
        index = found[-1]
        before = edit.entries[index]
        declared = Entry(
            name,
            before["tier"],
            home,
            index,
            owner=before.get("owner"),
            source=before.get("source"),
            lifecycle=before.get("lifecycle", "active"),
        )
        before_view = _my_view(ws, declared.identity, declared)  # the file is still the old one
        after = with_key(before, "force", True) if force else without_key(before, "force")
        edit.entries[index] = after
    subject = f"declaration {name} (owner {before.get('owner')}, tier {before.get('tier')})"
    change = Change(
        edit.rel,
        home,
        "updated" if before != after else "unchanged",
        subject,
        before,
        after,
        edit.written,
        dry_run,
    )
    change.effect = _effect(ws, declared.identity, declared, home, edit.text, before_view)
    if force and declared.lifecycle == "draft":
        change.notes.append(f"{name} is a draft: it reaches only its owner even when forced")
    if change.changed:
        change.notes.append(
            f"{name} now reaches everyone whose chain includes {home}"
            if force
            else f"{name} now reaches only its owner ({before.get('owner')}) and those who opt in"
        )
    return change


def list_registry(ws: Workspace, into: str | None) -> Registry:
    """The registry ``--into`` names (default as for promote), loaded with its findings."""
    return ws.registry(target_scope(ws, into))


def next_steps(ws: Workspace) -> list[str]:
    """What to run so the agents pick the change up."""
    agents = ws.connection.agents or ["AGENT"]
    return [f"connect-agent {agent} --relink" for agent in agents]
