"""Carrying out an ``exobrain adopt`` plan (:mod:`exobrain.interop.adopt`) in one scope.

External skills become declarations in the scope's skills.json; copies and forks go in as
``exobrain import`` puts skills in — translated and checked (:func:`exobrain.interop.plan.
plan_skill`), copied through a staging folder, declared, and locked with an ``upstream`` record
that names the installer's source (repository, path, ref and, when known, commit) and an
``adopted`` note of the record it came from. The registry is written once, after every copy
succeeded; a failure removes the copies made a moment ago. Only the scope's registry, lock and
``skills/`` folder are written; the installed folders and the other tools' records are only
read.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from exobrain.artifacts.lockfile import replaced, update_lock
from exobrain.interop.adopt import EXTERNAL, FORK, AdoptItem, AdoptPlan
from exobrain.interop.importer import install
from exobrain.interop.inputs import Opened
from exobrain.interop.localsources import remember
from exobrain.interop.plan import lock_entry_for, upstream_record
from exobrain.paths import skill_dir
from exobrain.registry.editor import edit_registry, ordered_entry
from exobrain.workspace import Workspace


def external_entry(plan: AdoptPlan, item: AdoptItem) -> dict[str, Any]:
    """The declaration of an adopted external skill, pinned to the checked commit."""
    origin = item.origin
    assert origin is not None and origin.repo and origin.path and item.commit
    asked = origin.ref or "the default branch"
    return ordered_entry(
        {
            "name": item.name,
            "owner": plan.owner,
            "tier": plan.tier,
            "source": {"repo": origin.repo, "path": origin.path, "ref": item.commit},
            "notes": f"adopted from {origin.tool} ({origin.record}): {asked} at {item.commit}",
        }
    )


def apply_plan(ws: Workspace, plan: AdoptPlan) -> None:
    """Write the plan into its scope (see the module docstring); statuses say what was done."""
    copies = plan.copies
    externals = [i for i in plan.items if i.action == EXTERNAL]
    if not copies and not externals:
        return
    made: list[Path] = []
    sources: list[tuple[Path, Opened]] = []
    locks: dict[str, dict[str, Any]] = {}
    try:
        with edit_registry(ws.root, plan.scope) as edit:
            for item in externals:
                if edit.find(name=item.name):
                    item.action, item.problem = "skip", f"{item.name!r} appeared meanwhile"
                    continue
                edit.upsert(external_entry(plan, item), name=item.name, owner=plan.owner)
                item.status = "adopted"
            for item, copy, src, adapter in copies:
                target = skill_dir(ws.root, plan.scope, item.name)
                if edit.find(name=item.name) or target.exists():
                    item.action, item.problem = "skip", f"{item.name!r} appeared meanwhile"
                    continue
                upstream, local = install(item.folder, target, copy.text, root=ws.root)
                made.append(target)
                sources.append((target, src))
                record = upstream_record(
                    src, copy.found, adapter, upstream, local, copy.item.repairs
                )
                record["adopted"] = {
                    "tool": item.origin.tool if item.origin else "",
                    "record": item.origin.record if item.origin else "",
                    "installed": item.where,
                    "forked": item.action == FORK,
                }
                locks[item.name] = lock_entry_for(
                    copy.item.version or "", local, record, copy.powers
                )
                edit.upsert(
                    ordered_entry({"name": item.name, "owner": plan.owner, "tier": plan.tier}),
                    name=item.name,
                    **{"from": None, "source": None},
                )
                item.status = "adopted"
    except BaseException:
        for target in made:  # the registry was not written: nothing may point at them
            shutil.rmtree(target, ignore_errors=True)
        raise
    if locks:
        update_lock(ws.root, plan.scope, locks, merge=replaced)
    for target, src in sources:  # a local folder's place: this machine's, not the lock's
        remember(ws.root, target, src)
