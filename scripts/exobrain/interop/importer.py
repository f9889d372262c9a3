"""``exobrain import``: bring foreign skills in as versioned artifacts of a scope.

For each skill of the source: read its SKILL.md (repairing YAML slips), translate the
frontmatter with the format's adapter and check it (:mod:`exobrain.interop.plan`), copy the
files into ``<scope>/skills/<name>/`` through a staging folder and one rename, declare it in the
scope's registry and lock it with an ``upstream`` record (where it came from, the upstream
commit and content hash) that ``exobrain import --update`` compares against later. An import
killed between those writes is finished by running it again.

One broken skill never stops the batch: it is reported with its reason and nothing of it is
written. Everything is checked before anything is written, and ``dry_run`` writes nothing.
"""

from __future__ import annotations

import hashlib
import shutil
from collections import defaultdict
from collections.abc import Callable
from contextlib import ExitStack, suppress
from pathlib import Path
from types import ModuleType
from typing import Any

from exobrain.artifacts.checks import resolve_ref, skill_refs
from exobrain.artifacts.lockfile import read_lock, replaced, update_lock
from exobrain.artifacts.promote import target_scope
from exobrain.errors import ExobrainError, UsageError
from exobrain.interop.formats import detect, importer
from exobrain.interop.formats.bundle import Bundle, FoundSkill, discover
from exobrain.interop.formats.fields import SLUG
from exobrain.interop.inputs import Opened, classify, is_shorthand, open_source
from exobrain.interop.localsources import remember
from exobrain.interop.plan import (
    Plan,
    Reading,
    Report,
    lock_entry_for,
    plan_skill,
    read_skill_text,
    upstream_record,
)
from exobrain.model import GLOBAL, Identity
from exobrain.paths import shown, skill_dir
from exobrain.registry.editor import edit_registry, ordered_entry
from exobrain.scopes import is_shared
from exobrain.skillmd import SKILL_FILE
from exobrain.util.dirhash import file_digests
from exobrain.util.staging import clean_leftovers, staged_folder
from exobrain.util.treecopy import copy_tree
from exobrain.workspace import Workspace


def who_owns(ws: Workspace, owner: str | None) -> str:
    who = owner or ws.connection.person or (sorted(ws.my_ids)[0] if ws.my_ids else None)
    if who is None:
        raise UsageError(
            "imported skills need an owner for their declaration",
            hint="connect as a person (connect-agent … --person ID) or pass --owner",
        )
    return who


def scope_is_shared(ws: Workspace, scope: str) -> bool:
    """Whether what lands in ``scope`` reaches other members (anything not known to be a
    person's or a host's own counts as shared)."""
    found = ws.scope_at(scope)
    return found is None or is_shared(found.type)


def _select(
    bundle: Bundle,
    readings: dict[str, Reading],
    wanted: tuple[str, ...],
    all_skills: bool,
    new_name: str | None,
    source: str,
) -> list[FoundSkill]:
    def names(found: FoundSkill) -> set[str]:
        reading = readings[found.rel]
        declared = reading[0].get("name") if isinstance(reading, tuple) else None
        return {found.folder_name, found.rel, str(declared)} - {"None", ""}

    listing = ", ".join(s.folder_name for s in bundle.skills[:20])
    more = f" and {len(bundle.skills) - 20} more" if len(bundle.skills) > 20 else ""
    if wanted:
        chosen = [s for s in bundle.skills if names(s) & set(wanted)]
        missing = sorted(set(wanted) - set().union(*(names(s) for s in chosen)))
        if missing:
            raise UsageError(
                f"{source}: no skill named {', '.join(missing)}", hint=f"it holds {listing}{more}"
            )
    elif len(bundle.skills) == 1 or all_skills:
        chosen = list(bundle.skills)
    else:
        raise UsageError(
            f"{source} holds {len(bundle.skills)} skills: {listing}{more}",
            hint="import them all with --all, or some with --skill NAME",
        )
    if new_name and len(chosen) > 1:
        raise UsageError("--name renames one skill; choose it with --skill NAME")
    return chosen


def _check_targets(ws: Workspace, scope: str, plans: list[Plan]) -> None:
    """Refuse names already taken in the scope or twice in this batch. A folder that an
    interrupted import of this same source left behind (its files exactly what this import
    writes, but not yet declared, or declared and not yet locked as imported) is no obstacle:
    the import finishes it (``plan.resume``)."""
    declared = {e.name for e in ws.registry(scope).entries if not e.is_override}
    locked = read_lock(ws.root, scope)["skills"]
    seen: set[str] = set()
    for plan in plans:
        item = plan.item
        if item.problem:
            continue
        target = skill_dir(ws.root, scope, item.name)
        imported = item.name in declared and isinstance(
            (locked.get(item.name) or {}).get("upstream"), dict
        )
        if item.name in seen:
            item.problem = f"another skill of this source is also named {item.name!r}"
        elif target.exists() or target.is_symlink():
            if imported:
                item.problem = (
                    f"{shown(target, ws.root)} already exists; re-import it with "
                    f"exobrain import --update {item.name}, or choose --name NEW"
                )
            elif _left_by(plan, target):
                plan.resume = True
            else:
                item.problem = (
                    f"{shown(target, ws.root)} already exists and holds other files than this "
                    f"import writes; move it away, or choose --name NEW"
                )
        elif item.name in declared:
            item.problem = (
                f"{item.name!r} is already declared in {scope}'s skills.json; choose --name NEW"
            )
        seen.add(item.name)


def _left_by(plan: Plan, target: Path) -> bool:
    """Whether ``target`` holds exactly what importing ``plan`` writes: the copy an import of
    the same source made before it was interrupted."""
    if target.is_symlink() or not target.is_dir():
        return False
    text = hashlib.sha256(plan.text.encode("utf-8")).hexdigest()
    try:
        return file_digests(target) == {**file_digests(plan.found.folder), SKILL_FILE: text}
    except (OSError, ExobrainError):
        return False


def check_references(ws: Workspace, scope: str, plans: list[Plan]) -> None:
    """Skip a skill whose ``dependencies.skills`` or ``links`` name a skill this repository
    (with the rest of the batch) does not declare: skills-validate would fail on it."""
    by_name: dict[str, set[Identity]] = defaultdict(set)
    for registry in ws.all_registries(include_seed=False):
        for entry in registry.entries:
            if not entry.is_override:
                by_name[entry.name].add(entry.identity)
    for plan in plans:
        if not plan.item.problem:
            by_name[plan.item.name].add(Identity(scope, plan.item.name))
    for plan in plans:
        missing = [
            f"{where}: {text}"
            for where, text in skill_refs(plan.meta)
            if resolve_ref(text, by_name) is None
        ]
        if missing and not plan.item.problem:
            plan.item.problem = (
                f"{'; '.join(missing)} names no skill declared here (skills-validate would "
                f"fail); import that skill first, or with this one"
            )


#: ``tick(done, total, what)``: progress, for a display the command line may show.
Tick = Callable[[int, int | None, str], None]


def _quiet(done: int, total: int | None, what: str) -> None:
    """No one is watching."""


def import_skills(
    ws: Workspace,
    source: str,
    *,
    fmt: str | None = None,
    into: str | None = None,
    new_name: str | None = None,
    skills: tuple[str, ...] = (),
    all_skills: bool = False,
    tier: str | None = None,
    owner: str | None = None,
    path: str | None = None,
    ref: str | None = None,
    allow_local: bool | None = None,
    dry_run: bool = False,
    tick: Tick | None = None,
) -> Report:
    """Import the skills of ``source`` into a scope (see the module docstring). ``tick(done,
    total, what)`` hears of each skill read and copied (a progress display)."""
    tick = tick or _quiet
    scope = target_scope(ws, into)
    who = who_owns(ws, owner)
    if new_name is not None and not SLUG.match(new_name):
        raise UsageError(f"--name {new_name!r}: use lowercase letters, digits and single hyphens")
    adapter = importer(fmt) if fmt else None
    kind, url, sub, ref = classify(source, path=path, ref=ref)
    with edit_registry(ws.root, scope, dry_run=True):
        pass  # a broken target registry refuses the import before anything is fetched
    with ExitStack() as stack:
        src = _enter(stack, source, kind, url, sub, ref, ws, allow_local)
        bundle = discover(src.root)
        if not bundle.skills:
            raise UsageError(
                f"{source}: no SKILL.md found",
                hint="point SOURCE at a skill folder or a bundle of skill folders",
            )
        readings: dict[str, Reading] = {}
        for number, found in enumerate(bundle.skills):
            tick(number, len(bundle.skills), f"reading {found.rel}")
            try:
                readings[found.rel] = read_skill_text(found)
            except ExobrainError as exc:
                readings[found.rel] = exc
        chosen = _select(bundle, readings, skills, all_skills, new_name, source)
        if adapter is None:
            metas = [r[0] for r in (readings[f.rel] for f in chosen) if isinstance(r, tuple)]
            adapter, reason = detect(bundle, metas)
        else:
            reason = "given with --format"
        notes = [*bundle.notes, *([src.note] if src.note else [])]
        report = Report(source, adapter.NAME, reason, scope, dry_run, notes=notes)
        policy = ws.registry(GLOBAL).policy
        shared = scope_is_shared(ws, scope)
        plans = [
            plan_skill(adapter, src, f, readings[f.rel], new_name, policy, shared=shared)
            for f in chosen
        ]
        _check_targets(ws, scope, plans)
        check_references(ws, scope, plans)
        good = [p for p in plans if not p.item.problem]
        if not dry_run and good:
            _apply(ws, scope, who, tier, good, src, adapter, tick)
        for plan in plans:
            if not plan.item.problem:
                plan.item.status = "would import" if dry_run else "imported"
                plan.item.ref = f"skill:{plan.item.name}@{scope}"
        report.items = [p.item for p in plans]
    return report


def _enter(
    stack: ExitStack,
    source: str,
    kind: str,
    url: str,
    sub: str,
    ref: str | None,
    ws: Workspace,
    allow_local: bool | None,
) -> Opened:
    """Open the source, saying how SOURCE was read when it was taken for GitHub shorthand."""
    try:
        return stack.enter_context(
            open_source(kind, url, sub, ref, root=ws.root, allow_local=allow_local)
        )
    except ExobrainError as exc:
        if is_shorthand(source) and not exc.hint:
            exc.hint = (
                f"{source} was read as the GitHub repository {url} because no such "
                f"local folder or archive exists"
            )
        raise


def install(
    found: Path, target: Path, text: str, *, root: Path
) -> tuple[dict[str, str], dict[str, str]]:
    """Copy a skill to ``target`` (inside ``root``) via a staging folder and one rename;
    (upstream, local) digests. ``target`` must not exist."""
    with staged_folder(target, root=root) as staging:
        return copy_tree(found, staging, replace={SKILL_FILE: text})


def _apply(
    ws: Workspace,
    scope: str,
    who: str,
    tier: str | None,
    plans: list[Plan],
    src: Opened,
    adapter: ModuleType,
    tick: Tick,
) -> None:
    """Copy, lock, then declare; a skill that fails to copy is reported and left out.

    The three writes are each atomic but not together, so the declaration comes last: a run
    killed before it leaves an undeclared copy (its lock entry, if written, names where it came
    from), which skills-validate reports with the fix — run the same import again, and it
    finishes such a skill (:func:`_check_targets`) and removes the staging folders a copy
    killed half-way left. An error (or an interrupt Python sees) undoes what was written."""
    created: dict[str, dict[str, Any]] = {}
    copied: list[Path] = []
    locked = False
    try:
        with edit_registry(ws.root, scope) as edit:
            for number, plan in enumerate(plans):
                item, target = plan.item, skill_dir(ws.root, scope, plan.item.name)
                tick(number, len(plans), f"copying {item.name}")
                if plan.resume:
                    upstream, local = file_digests(plan.found.folder), file_digests(target)
                    item.notes.append(
                        "finished an import of it that was interrupted (its copy was in place)"
                    )
                else:
                    if edit.find(name=item.name, **{"from": None}) or target.exists():
                        item.problem = f"{shown(target, ws.root)} appeared meanwhile; not imported"
                        continue
                    clean_leftovers(target.parent, item.name)
                    try:
                        upstream, local = install(
                            plan.found.folder, target, plan.text, root=ws.root
                        )
                    except (OSError, ExobrainError) as exc:
                        item.problem = getattr(exc, "message", None) or f"copy failed: {exc}"
                        continue
                    copied.append(target)
                record = upstream_record(src, plan.found, adapter, upstream, local, item.repairs)
                created[item.name] = lock_entry_for(item.version or "", local, record, plan.powers)
                if not edit.find(name=item.name, **{"from": None}):
                    edit.upsert(
                        ordered_entry(
                            {"name": item.name, "owner": who, "tier": tier or "optional"}
                        ),
                        name=item.name,
                        **{"from": None, "source": None},
                    )
            if created:  # before the registry is written, when the block ends
                locked = update_lock(ws.root, scope, created, merge=replaced)
    except BaseException:
        with suppress(ExobrainError, OSError):  # the registry was not written: undo the rest
            if locked:
                update_lock(ws.root, scope, dict.fromkeys(t.name for t in copied))
        for target in copied:
            shutil.rmtree(target, ignore_errors=True)
        raise
    for name in created:  # a local source's place: this machine's to know, not the lock's
        remember(ws.root, skill_dir(ws.root, scope, name), src)
