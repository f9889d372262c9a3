"""``exobrain register`` and ``exobrain lock``: make a skill folder a versioned artifact.

Register checks the SKILL.md (Agent Skills rules and the native schema), optionally bumps its
version (only the ``version:`` line changes; a new or bumped skill also gets ``schema_version``
and ``source: native`` when it has none), declares it in its scope's registry and writes its
lock entry. Lock recomputes lock entries repository-wide, refusing content that changed without
a version bump; ``--check`` only reports. Both refuse a skill folder holding a link that leads
outside it or a special file (:func:`exobrain.util.confine.unsafe_entries`): a lock must never
vouch for content that is not the skill's own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from exobrain.artifacts.content import SCHEMA_VERSION
from exobrain.artifacts.frontmatter import set_toolkit_field
from exobrain.artifacts.lockfile import (
    drift,
    lock_entry,
    powers_of,
    read_lock,
    renewed,
    update_lock,
    version_problem,
    with_powers,
)
from exobrain.artifacts.specrules import spec_problems
from exobrain.errors import InputFileError, UsageError
from exobrain.model import GLOBAL
from exobrain.paths import packaged, shown, skill_dir
from exobrain.registry.editor import edit_registry, ordered_entry
from exobrain.scopes import scope_at
from exobrain.skillmd import (
    SKILL_FILE,
    TOOLKIT_FIELDS,
    lifted,
    parse,
    quick_version,
    skill_text,
    toolkit_field,
    toolkit_field_conflicts,
)
from exobrain.util.confine import check_tree, unsafe_entries
from exobrain.util.fileio import atomic_write_text, is_file
from exobrain.util.versions import bump as bump_version
from exobrain.util.versions import is_version, newer
from exobrain.workspace import Workspace

FIRST_VERSION = "0.1.0"


@lru_cache(maxsize=1)
def _native_validator() -> Any:
    import jsonschema

    schema = json.loads(packaged("skill.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def native_errors(meta: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Violations of the native SKILL.md schema as (top-level key or "", JSON Schema keyword,
    "field: rule"); importers use the key to move a field that does not fit aside. The
    toolkit's fields are checked wherever they are (top level or ``metadata``)."""
    problems = [("metadata", "const", why) for why in toolkit_field_conflicts(meta)]
    for error in sorted(
        _native_validator().iter_errors(lifted(meta)), key=lambda e: list(map(str, e.path))
    ):
        where = ".".join(str(p) for p in error.absolute_path) or "frontmatter"
        rule = error.schema.get("description") if isinstance(error.schema, dict) else None
        key = str(error.absolute_path[0]) if error.absolute_path else ""
        problems.append((key, str(error.validator), f"{where}: {rule or error.message}"))
    return problems


def native_problems(meta: dict[str, Any]) -> list[str]:
    """Violations of the native SKILL.md schema (frontmatter field: rule)."""
    return [message for _, _, message in native_errors(meta)]


def skill_home(root: Path, folder: Path) -> tuple[str, str]:
    """(scope, name) of a skill folder ``<scope>/skills/<name>``; anything else is refused."""
    folder = folder.resolve()
    if folder.name == SKILL_FILE:
        folder = folder.parent
    try:
        rel = folder.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{folder} is not inside the exobrain at {root}") from None
    parts = rel.split("/")
    if len(parts) < 2 or parts[-2] != "skills":
        raise UsageError(
            f"{rel}: a skill folder must be <scope>/skills/<name>",
            hint="move the folder under a scope's skills/ folder",
        )
    scope = "/".join(parts[:-2]) or GLOBAL
    return scope, parts[-1]


@dataclass
class Registered:
    ref: str
    version: str
    hash: str
    bumped_from: str | None = None
    declared: bool = False
    notes: list[str] = field(default_factory=list)


def register(
    ws: Workspace,
    folder: Path,
    *,
    bump: str | None = None,
    tier: str | None = None,
    owner: str | None = None,
    dry_run: bool = False,
) -> Registered:
    """Check, optionally bump, declare and lock one skill folder."""
    scope, name = skill_home(ws.root, folder)
    if scope != GLOBAL and scope_at(ws.root, scope, ws.config) is None:
        raise UsageError(f"{scope} is not a scope (no {scope}/AGENTS.md)")
    path = skill_dir(ws.root, scope, name) / SKILL_FILE
    check_tree(path.parent, shown(path.parent, ws.root))
    text = skill_text(path)
    doc = parse(text, path)
    problems = [m for _, m in spec_problems(doc.meta, name)] + native_problems(doc.raw)
    if problems:
        raise InputFileError(
            f"{shown(path, ws.root)}: " + "; ".join(problems),
            hint="fix the frontmatter, then register again",
        )
    version = toolkit_field(doc.meta, "version")
    notes: list[str] = []
    locked = read_lock(ws.root, scope)["skills"].get(name)
    if version is None:
        version = FIRST_VERSION
        notes.append(f"no version yet: set {FIRST_VERSION}")
    elif not is_version(version):
        raise InputFileError(
            f"{shown(path, ws.root)}: version {version!r} is not MAJOR.MINOR.PATCH"
        )
    bumped_from = None
    if bump:
        bumped_from, version = version, bump_version(str(version), bump)
    if bump or locked is None or version != toolkit_field(doc.meta, "version"):
        text = set_toolkit_field(text, "version", str(version))
    if locked is None or bump:
        text = _stamp(text, doc.meta, notes)
    else:
        if toolkit_field(doc.meta, "schema_version") is None:
            notes.append("schema_version and source are written with the next --bump")
        if any(k in doc.raw for k in TOOLKIT_FIELDS):
            notes.append(
                "the toolkit's fields (version, schema_version, source) move into metadata "
                "with the next --bump, where the Agent Skills specification allows them"
            )
    if locked is not None:
        folder_drift = drift(path.parent, locked)
        if bump is None:
            problem = version_problem(
                str(version), locked, folder_drift, shown(path.parent, ws.root)
            )
            if problem:
                raise UsageError(f"{shown(path, ws.root)}: {problem}")
        elif not newer(str(version), locked["version"]):
            raise UsageError(
                f"{shown(path, ws.root)}: bumped version {version} is not newer "
                f"than the locked {locked['version']}"
            )
    declared = _declare(ws, scope, name, tier, owner, dry_run)
    if not dry_run and text != skill_text(path):
        atomic_write_text(path, text, root=ws.root)
    entry = with_powers(lock_entry(path.parent, str(version)), powers_of(doc.meta))
    if dry_run:
        return Registered(
            f"skill:{name}@{scope}", str(version), entry["hash"], bumped_from, declared, notes
        )
    update_lock(ws.root, scope, {name: entry}, merge=renewed)
    return Registered(
        f"skill:{name}@{scope}", str(version), entry["hash"], bumped_from, declared, notes
    )


def _stamp(text: str, meta: dict[str, Any], notes: list[str]) -> str:
    """Write the artifact fields a registered skill carries when it has none yet:
    ``schema_version`` and ``source: native`` (an imported or composed skill keeps its own),
    and move the toolkit's fields still at the top level into ``metadata``. Only a new
    version may change content, so a locked skill gets them with a bump."""
    stamps = {"schema_version": str(SCHEMA_VERSION), "source": "native"}
    for key in TOOLKIT_FIELDS:
        value = toolkit_field(meta, key)
        if key == "version" or (value is None and key not in stamps):
            continue  # the version is written by the caller
        if value is None:
            notes.append(f"set {key}: {stamps[key]}")
        text = set_toolkit_field(text, key, str(stamps[key] if value is None else value))
    return text


def _declare(
    ws: Workspace, scope: str, name: str, tier: str | None, owner: str | None, dry_run: bool
) -> bool:
    """Add the declaration when missing (owner from --owner or the connection); update the tier
    when one is given. Returns True when the registry changed."""
    with edit_registry(ws.root, scope, dry_run=dry_run) as edit:
        existing = edit.find(name=name, **{"from": None, "source": None})
        if existing:
            if tier is not None:
                current = edit.entries[existing[-1]]
                edit.upsert({**current, "tier": tier}, name=name, **{"from": None, "source": None})
            return edit.changed
        who = owner or ws.connection.person or (sorted(ws.my_ids)[0] if ws.my_ids else None)
        if who is None:
            raise UsageError(
                f"{name}: no owner for the new declaration",
                hint="connect as a person (connect-agent … --person ID) or pass --owner",
            )
        edit.upsert(
            ordered_entry({"name": name, "owner": who, "tier": tier or "optional"}),
            name=name,
            **{"from": None, "source": None},
        )
        return edit.changed


def rewrite_skill(ws: Workspace, scope: str, name: str, text: str, *, dry_run: bool = False) -> str:
    """Write a toolkit edit of a skill's SKILL.md and leave its lock fresh: a versioned skill
    still at its locked version gets a patch bump (its content changed), and its lock entry
    is rewritten. Returns the version the skill has now ("" when it has none: unversioned
    skills are not locked)."""
    path = skill_dir(ws.root, scope, name) / SKILL_FILE
    version = toolkit_field(parse(text, path).meta, "version")
    if not is_version(version):
        if not dry_run:
            atomic_write_text(path, text, root=ws.root)
        return ""
    locked = read_lock(ws.root, scope)["skills"].get(name)
    if locked is not None and not newer(str(version), locked["version"]):
        version = bump_version(locked["version"], "patch")
        text = set_toolkit_field(text, "version", version)
    if not dry_run:
        atomic_write_text(path, text, root=ws.root)
        update_lock(ws.root, scope, {name: lock_entry(path.parent, str(version))})
    return str(version)


@dataclass
class LockReport:
    written: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def lock_all(ws: Workspace, *, check: bool = False) -> LockReport:
    """Bring every lock up to date (or, with ``check``, only report what is out of date).

    Unlocked skills with a version are locked; content that changed while the version stayed
    is refused (bump it with register --bump) and reported as stale. Entries of skills that are
    no longer declared in-tree in that scope, or whose folder is gone, are dropped (stale).
    """
    report = LockReport()
    for scope in ws.scan().scopes:
        registry = ws.registry(scope.path)
        updates: dict[str, dict[str, Any] | None] = {}
        lock = read_lock(ws.root, registry.scope)["skills"]
        kept: set[str] = set()
        for entry in registry.entries:
            if entry.is_override or entry.source:
                continue
            path = skill_dir(ws.root, registry.scope, entry.name) / SKILL_FILE
            if not is_file(path):
                continue
            kept.add(entry.name)
            ref = f"skill:{entry.name}@{registry.scope}"
            try:
                _lock_one(ws.root, ref, path, lock.get(entry.name), report, updates)
            except InputFileError as exc:
                # one skill that cannot be read (over the 1 MB cap for a SKILL.md, broken
                # frontmatter) is named and left as it is; every other skill is still locked
                report.stale.append(_unreadable(ws.root, ref, exc))
                report.refused.append(ref)
        if registry.findings:  # a broken registry: what it declares is unknown, drop nothing
            kept |= set(lock)
        for name in sorted(set(lock) - kept):
            folder = skill_dir(ws.root, registry.scope, name)
            why = (
                "locked as imported, but not declared: an import of it was interrupted; run "
                "that exobrain import again to finish it"
                if isinstance(lock[name].get("upstream"), dict) and is_file(folder / SKILL_FILE)
                else "locked, but no longer declared here (or its folder is gone)"
            )
            report.stale.append(f"skill:{name}@{registry.scope}: {why}")
            updates[name] = None
            report.dropped.append(f"skill:{name}@{registry.scope}")
        if updates and not check:
            update_lock(ws.root, registry.scope, updates)
            report.written += [
                f"skill:{n}@{registry.scope}" for n, item in updates.items() if item is not None
            ]
    return report


def _lock_one(
    root: Path,
    ref: str,
    path: Path,
    locked: dict[str, Any] | None,
    report: LockReport,
    updates: dict[str, dict[str, Any] | None],
) -> None:
    """Compare one versioned skill (its SKILL.md at ``path``) with its lock entry, noting in
    ``report`` what is stale or refused and in ``updates`` the entry to write."""
    version = quick_version(path)
    if not is_version(version):
        return
    name = path.parent.name
    unsafe = unsafe_entries(path.parent)
    if unsafe:
        report.stale += [f"{ref}: {rel} is {why}; not locked" for rel, why in unsafe]
        report.refused.append(ref)
        return
    if locked is None:
        report.stale.append(f"{ref}: not locked")
        updates[name] = lock_entry(path.parent, version)
        return
    folder_drift = drift(path.parent, locked)
    problem = version_problem(version, locked, folder_drift, shown(path.parent, root))
    if problem:
        report.stale.append(f"{ref}: {problem}")
        report.refused.append(ref)
    elif version != locked["version"] or folder_drift.any:
        report.stale.append(f"{ref}: locked {locked['version']}, now {version}")
        updates[name] = lock_entry(path.parent, version)


def _unreadable(root: Path, ref: str, exc: InputFileError) -> str:
    """The stale line of a skill lock could not read: the file (relative to the repository),
    what is wrong with it and the fix."""
    text = exc.message.replace(f"{root}{os.sep}", "")
    return f"{ref}: {text}; not locked" + (f" (fix: {exc.hint})" if exc.hint else "")
