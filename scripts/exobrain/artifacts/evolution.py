"""How skills replace and derive from each other: lifecycle moves, supersession and forks.

Each operation checks everything first and then writes through the shared machinery (the
registry editor for declarations, atomic writes for SKILL.md files), so a refused operation
leaves every file as it was.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.artifacts.content import SCHEMA_VERSION
from exobrain.artifacts.frontmatter import add_link, dump_frontmatter, in_metadata
from exobrain.artifacts.lockfile import (
    lock_entry,
    lock_path,
    read_lock,
    recorded_powers,
    replaced,
    update_lock,
)
from exobrain.artifacts.register import rewrite_skill
from exobrain.errors import UsageError
from exobrain.model import transition_problem
from exobrain.paths import shown, skill_dir
from exobrain.refs import canonical, parse_ref
from exobrain.registry.editor import edit_registry, ordered_entry, with_key, without_key
from exobrain.registry.entries import Entry
from exobrain.scopes import check_scope_path, scope_at
from exobrain.skillmd import (
    SKILL_FILE,
    folded_fields,
    lifted,
    links_of,
    parse,
    read_skill,
    skill_text,
    toolkit_field,
)
from exobrain.supersession import supersedes_edges
from exobrain.util.confine import check_tree
from exobrain.util.graphs import find_cycles
from exobrain.util.staging import staged_folder
from exobrain.util.treecopy import copy_tree
from exobrain.workspace import Workspace, find_declaration

FORK_VERSION = "0.1.0"


@dataclass
class Outcome:
    """What an operation did (or would do, with ``dry_run``), for text and JSON output."""

    summary: str
    files: list[str]

    def as_json(self) -> dict[str, Any]:
        return {"summary": self.summary, "files": self.files}


def in_tree(ws: Workspace, text_ref: str) -> Entry:
    """The in-tree declaration a reference names (external skills have no files here)."""
    entry = find_declaration(ws, parse_ref(text_ref))
    if entry.source is not None:
        raise UsageError(
            f"{canonical(entry)} is an external skill; its files live upstream",
            hint="fork it into a scope first: exobrain fork REF --into SCOPE",
        )
    return entry


def set_lifecycle(ws: Workspace, text_ref: str, to: str, *, dry_run: bool = False) -> Outcome:
    """Move a declaration's lifecycle along an allowed transition."""
    entry = find_declaration(ws, parse_ref(text_ref))
    problem = transition_problem(entry.lifecycle, to)
    if problem:
        raise UsageError(
            f"{canonical(entry)}: {problem}", hint="exobrain show NAME shows its lifecycle"
        )
    if entry.lifecycle == to:
        return Outcome(f"{canonical(entry)} is already {to}", [])
    with edit_registry(ws.root, entry.scope, dry_run=dry_run) as edit:
        index = edit.find(name=entry.name, owner=entry.owner, **{"from": None})[-1]
        current = edit.entries[index]
        # "active" is the default: the key goes away rather than being spelled out
        edit.entries[index] = (
            without_key(current, "lifecycle")
            if to == "active"
            else with_key(current, "lifecycle", to)
        )
    return Outcome(f"{canonical(entry)}: lifecycle {entry.lifecycle} → {to}", [edit.rel])


def supersede(ws: Workspace, new_ref: str, old_ref: str, *, dry_run: bool = False) -> Outcome:
    """Record in NEW's SKILL.md that it supersedes OLD (refusing self-links and cycles)."""
    new, old = in_tree(ws, new_ref), find_declaration(ws, parse_ref(old_ref))
    if new.identity == old.identity:
        raise UsageError(f"{canonical(new)} cannot supersede itself")
    path = skill_dir(ws.root, new.scope, new.name) / SKILL_FILE
    text = skill_text(path)
    doc = parse(text, path)
    target = canonical(old)
    if target in links_of(doc.meta, "supersedes"):
        return Outcome(f"{canonical(new)} already supersedes {target}", [])
    entries = [e for r in ws.all_registries() for e in r.entries]
    edges = supersedes_edges(ws.root, entries)
    edges.setdefault(new.identity, []).append(old.identity)
    if find_cycles(edges):
        raise UsageError(
            f"{canonical(new)} superseding {target} would make a cycle",
            hint=f"exobrain show {target} lists what it supersedes",
        )
    version = rewrite_skill(
        ws, new.scope, new.name, add_link(text, "supersedes", target), dry_run=dry_run
    )
    before = toolkit_field(doc.meta, "version")
    bumped = f" (version {before} → {version})" if version and version != str(before) else ""
    files = [shown(path, ws.root)]
    if version:
        files.append(shown(lock_path(ws.root, new.scope), ws.root))
    verb = "would supersede" if dry_run else "now supersedes"
    return Outcome(f"{canonical(new)} {verb} {target}{bumped}", files)


def fork(
    ws: Workspace,
    text_ref: str,
    into: str,
    *,
    name: str | None = None,
    owner: str | None = None,
    dry_run: bool = False,
) -> Outcome:
    """Copy a skill into ``into`` as a new native draft that derives from the original."""
    original = in_tree(ws, text_ref)
    scope = check_scope_path(into)
    if scope_at(ws.root, scope, ws.config) is None:
        raise UsageError(f"--into {into}: not a scope (no {scope}/AGENTS.md)")
    new_name = name or original.name
    source_dir = skill_dir(ws.root, original.scope, original.name)
    target_dir = skill_dir(ws.root, scope, new_name)
    if target_dir.exists():
        raise UsageError(
            f"{shown(target_dir, ws.root)} already exists", hint="choose another name with --name"
        )
    who = owner or ws.connection.person or (sorted(ws.my_ids)[0] if ws.my_ids else None)
    if who is None:
        raise UsageError("a fork needs an owner", hint="connect as a person or pass --owner")
    check_tree(source_dir, shown(source_dir, ws.root))  # never copy a link leading outside
    doc = read_skill(source_dir / SKILL_FILE)
    meta = dict(lifted(doc.meta))
    origin_lock = lock_entry(source_dir, str(meta.get("version") or FORK_VERSION))
    meta["name"] = new_name
    meta["version"] = FORK_VERSION
    meta["schema_version"] = SCHEMA_VERSION
    meta["source"] = "native"
    links = dict(meta.get("links") or {})
    links.pop("supersedes", None)
    links["derives_from"] = [
        {"ref": canonical(original), "version": origin_lock["version"], "hash": origin_lock["hash"]}
    ]
    meta["links"] = links
    fold = folded_fields(doc.raw) + ([] if "links" in doc.raw else ["links"])
    # the copy gives an agent the same powers: what was accepted for the origin stays accepted
    origin_powers = recorded_powers(read_lock(ws.root, original.scope)["skills"].get(original.name))
    accepted = {"powers": sorted(origin_powers)} if origin_powers else {}
    files = [shown(target_dir / SKILL_FILE, ws.root), shown(ws.root / scope, ws.root)]
    if dry_run:
        return Outcome(f"would fork {canonical(original)} into skill:{new_name}@{scope}", files)
    try:
        with edit_registry(ws.root, scope) as edit:
            if edit.find(name=new_name, **{"from": None, "source": None}):
                raise UsageError(f"{new_name} is already declared in {edit.rel}")
            _copy_skill(
                source_dir,
                target_dir,
                dump_frontmatter(in_metadata(meta, fold=fold), doc.body),
                root=ws.root,
            )
            edit.upsert(
                ordered_entry(
                    {"name": new_name, "owner": who, "tier": "optional", "lifecycle": "draft"}
                ),
                name=new_name,
                **{"from": None, "source": None},
            )
    except BaseException:
        if target_dir.exists():  # we created it a moment ago; the registry was not written
            shutil.rmtree(target_dir)
        raise
    entry = {**lock_entry(target_dir, FORK_VERSION), **accepted}
    update_lock(ws.root, scope, {new_name: entry}, merge=replaced)
    return Outcome(
        f"forked {canonical(original)} into skill:{new_name}@{scope} "
        f"(draft {FORK_VERSION}, owner {who})",
        files,
    )


def _copy_skill(source: Path, target: Path, skill_md: str, *, root: Path) -> None:
    """Copy a skill folder (junk left out; links leading outside and special files refused)
    via a staging folder and one rename."""
    with staged_folder(target, root=root) as staging:
        copy_tree(source, staging, replace={SKILL_FILE: skill_md})
