"""``exobrain move`` and ``exobrain remove``: a skill changes scope, or goes.

A skill is three things in three places — its folder, its declaration and its lock entry — and
other registries may hold overrides that name its home. Moving or removing it by hand means
``git mv``, editing two registries and a lock, and hunting down the overrides; these functions
do all of it in one step, checked first:

* **move** renames the folder with ``git mv`` (a plain rename when git does not track it), moves
  the declaration with every field it has into the target scope's registry, rewrites each
  override that named the old home so it follows the skill (an override of the new home that
  is already there wins, the old one is dropped), and moves the lock entry, whose hash still
  holds: the content did not change;
* **remove** deletes the declaration, the folder (from disk and from git's index) and the lock
  entry; overrides that would be left pointing at nothing are listed and refused unless
  ``force``, which removes them too.

Every registry involved is opened under its lock (in path order, so two commands never wait on
each other) and checked before anything moves; a failure before the registries are written puts
the folder back. Links in other skills' SKILL.md that name the old home are reported, not
rewritten: changing them is an edit of those skills, with a version bump of their own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.artifacts.evolution import in_tree
from exobrain.artifacts.lockfile import lock_path, read_lock, update_lock
from exobrain.artifacts.show import incoming_links
from exobrain.errors import ExobrainError, InputFileError, UsageError
from exobrain.model import EXTERNAL, Identity
from exobrain.paths import shown, skill_dir
from exobrain.refs import canonical, parse_ref
from exobrain.registry.editor import RegistryEdit, edit_registry, ordered_entry
from exobrain.registry.entries import Entry
from exobrain.scopes import check_scope_path, scope_at
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import make_folders
from exobrain.util.repository import Repository
from exobrain.util.staging import discard_folder
from exobrain.workspace import Workspace, find_declaration


@dataclass
class Change:
    """What a move or a removal did (or, with ``dry_run``, would do)."""

    name: str
    ref: str  # the skill as it was
    new_ref: str | None  # where it lives now (None: removed)
    from_scope: str
    to_scope: str | None
    files: list[str] = field(default_factory=list)  # changed files and folders
    overrides: list[str] = field(default_factory=list)  # "<registry> #i: what happened"
    links: list[str] = field(default_factory=list)  # skills whose SKILL.md names the old ref
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ref": self.ref,
            "new_ref": self.new_ref,
            "from": self.from_scope,
            "to": self.to_scope,
            "files": self.files,
            "overrides": self.overrides,
            "links": self.links,
            "notes": self.notes,
            "dry_run": self.dry_run,
        }


def _overrides_of(ws: Workspace, identity: Identity) -> list[Entry]:
    """Every override in the repository that names ``identity``."""
    return [
        entry
        for registry in ws.all_registries()
        for entry in registry.entries
        if entry.is_override and entry.identity == identity
    ]


def _override_match(entry: Entry) -> dict[str, Any]:
    match: dict[str, Any] = {"name": entry.name, "from": entry.origin}
    if entry.origin == EXTERNAL:
        match["owner"] = entry.owner
    return match


@contextmanager
def _editing(ws: Workspace, scopes: set[str], dry_run: bool) -> Iterator[dict[str, RegistryEdit]]:
    """The registries of ``scopes`` open for editing, locked in path order; each is written
    when the block ends (none when it raises)."""
    with ExitStack() as stack:
        yield {
            scope: stack.enter_context(edit_registry(ws.root, scope, dry_run=dry_run))
            for scope in sorted(scopes)
        }


def _linked_from(ws: Workspace, entry: Entry) -> list[str]:
    return [
        f"{ref} ({predicate})"
        for predicate, refs in incoming_links(ws, entry).items()
        for ref in refs
    ]


def move_skill(ws: Workspace, text_ref: str, to: str, *, dry_run: bool = False) -> Change:
    """Move an in-tree skill to the scope ``to``: folder, declaration, overrides, lock."""
    entry = in_tree(ws, text_ref)
    target = check_scope_path(to)
    if scope_at(ws.root, target, ws.config) is None:
        raise UsageError(
            f"--to {to}: not a scope (no {target}/AGENTS.md)",
            hint=f"make it first: exobrain scope new {target}",
        )
    if target == entry.scope:
        raise UsageError(f"{canonical(entry)} already lives in {target}")
    source_dir = skill_dir(ws.root, entry.scope, entry.name)
    target_dir = skill_dir(ws.root, target, entry.name)
    if not source_dir.is_dir():
        raise UsageError(
            f"{canonical(entry)}: its folder {shown(source_dir, ws.root)} is missing",
            hint="skills-validate shows the problem; restore the folder or remove the skill",
        )
    if target_dir.exists() or target_dir.is_symlink():
        raise UsageError(
            f"{shown(target_dir, ws.root)} already exists",
            hint="choose another scope, or rename one of the two skills",
        )
    new_ref = f"skill:{entry.name}@{target}"
    change = Change(entry.name, canonical(entry), new_ref, entry.scope, target, dry_run=dry_run)
    change.files = [shown(source_dir, ws.root), shown(target_dir, ws.root)]
    overrides = _overrides_of(ws, entry.identity)
    broken = {r.scope for r in ws.all_registries() if r.findings}
    for override in overrides:
        if override.scope in broken:
            change.notes.append(
                f"{shown(ws.registry(override.scope).path, ws.root)} has errors: its override "
                f'of {change.ref} was not rewritten; set "from": "{target}" by hand'
            )
    writable = [o for o in overrides if o.scope not in broken]
    change.links = _linked_from(ws, entry)
    moved = False
    try:
        with _editing(ws, {entry.scope, target, *(o.scope for o in writable)}, dry_run) as edits:
            source, destination = edits[entry.scope], edits[target]
            plain = {"name": entry.name, "from": None, "source": None}
            found = source.find(**plain)
            if not found:
                raise UsageError(f"{change.ref} is no longer declared in {source.rel}; run again")
            if destination.find(**plain):
                raise UsageError(f"{entry.name} is already declared in {destination.rel}")
            destination.entries.append(ordered_entry(source.entries.pop(found[-1])))
            for override in writable:
                change.overrides.append(_follow(edits[override.scope], override, target))
            if not dry_run:  # the registries are written when the block ends
                _git_move(ws.root, source_dir, target_dir)
                moved = True
    except BaseException:
        if moved:  # a registry could not be written: the folder goes back
            _git_move(ws.root, target_dir, source_dir)
        raise
    change.files += sorted({e.rel for e in edits.values() if e.changed})
    if not dry_run:
        locked = read_lock(ws.root, entry.scope)["skills"].get(entry.name)
        if locked is not None:
            update_lock(ws.root, target, {entry.name: locked})
            update_lock(ws.root, entry.scope, {entry.name: None})
            change.files += [shown(lock_path(ws.root, s), ws.root) for s in (entry.scope, target)]
    return change


def _follow(edit: RegistryEdit, override: Entry, target: str) -> str:
    """Point one override at the skill's new home (or drop it when one already does)."""
    where = f"{edit.rel} #{override.index}"
    match = _override_match(override)
    index = edit.find(**match)[-1]
    if edit.find(name=override.name, **{"from": target}):
        edit.entries.pop(index)
        return f"{where}: dropped (an override of {target} is already there)"
    edit.entries[index] = {**edit.entries[index], "from": target}
    return f"{where}: from {override.origin} → {target} (tier {override.tier})"


def _git_move(root: Path, old: Path, new: Path) -> None:
    """``git mv`` when git tracks something in the folder, else a plain rename; both ends
    stay inside the repository (a committed link on the way that leaves it is refused)."""
    old = resolve_inside(root, old.parent) / old.name
    new = make_folders(root, new.parent) / new.name
    repository = _repository(root)
    if repository is not None and repository.tracked(shown(old, root)):
        repository.move(shown(old, root), shown(new, root))
    else:
        os.rename(old, new)


def _repository(root: Path) -> Repository | None:
    try:
        return Repository(root)
    except ExobrainError:  # not a git work tree: the folder is moved or removed plainly
        return None


def remove_skill(
    ws: Workspace, text_ref: str, *, force: bool = False, dry_run: bool = False
) -> Change:
    """Remove a skill: its declaration, its folder (in-tree skills) and its lock entry. The
    overrides that would dangle are refused unless ``force``, which removes them too."""
    entry = find_declaration(ws, parse_ref(text_ref))
    change = Change(entry.name, canonical(entry), None, entry.scope, None, dry_run=dry_run)
    others = [
        e
        for r in ws.all_registries()
        for e in r.entries
        if not e.is_override and e.identity == entry.identity and e != entry
    ]
    dangling = [] if others else _overrides_of(ws, entry.identity)
    listed = [
        f"{shown(ws.registry(o.scope).path, ws.root)} #{o.index} (tier {o.tier})" for o in dangling
    ]
    if dangling and not force:
        raise UsageError(
            f"removing {change.ref} would leave {len(dangling)} override(s) pointing at "
            f"nothing: {', '.join(listed)}",
            hint="remove them too with --force, or ask their owners first",
        )
    broken = [o for o in dangling if ws.registry(o.scope).findings]
    if broken:
        raise InputFileError(
            f"{shown(ws.registry(broken[0].scope).path, ws.root)} has errors, so its override "
            f"of {change.ref} cannot be removed; nothing was changed",
            hint="fix it first (skills-validate lists the problems)",
        )
    folder = None if entry.source else skill_dir(ws.root, entry.scope, entry.name)
    change.links = _linked_from(ws, entry)
    with _editing(ws, {entry.scope, *(o.scope for o in dangling)}, dry_run) as edits:
        own = edits[entry.scope]
        match: dict[str, Any] = {"name": entry.name, "from": None}
        if entry.source:
            match["owner"] = entry.owner
        found = [i for i in own.find(**match) if ("source" in own.entries[i]) == bool(entry.source)]
        if not found:
            raise UsageError(f"{change.ref} is no longer declared in {own.rel}; run again")
        own.entries.pop(found[-1])
        for override in dangling:
            edit = edits[override.scope]
            edit.entries.pop(edit.find(**_override_match(override))[-1])
            change.overrides.append(f"{edit.rel} #{override.index}: removed")
    change.files = sorted(e.rel for e in edits.values() if e.changed)
    if folder is not None and (folder.exists() or folder.is_symlink()):
        change.files.append(shown(folder, ws.root))
        if not dry_run:
            _delete(ws.root, folder)
    if not dry_run and not entry.source and update_lock(ws.root, entry.scope, {entry.name: None}):
        change.files.append(shown(lock_path(ws.root, entry.scope), ws.root))
    return change


def _delete(root: Path, folder: Path) -> None:
    """Remove a skill folder from git's index and from disk (a link: the link only); the
    folder must lie inside the repository."""
    folder = resolve_inside(root, folder.parent) / folder.name
    repository = _repository(root)
    if repository is not None:
        repository.forget(shown(folder, root))
    if folder.is_symlink():
        folder.unlink()
    else:
        discard_folder(folder)
