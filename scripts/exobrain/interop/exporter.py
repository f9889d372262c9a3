"""``exobrain export``: skills out as standard Agent Skills bundles or a Claude Code plugin, and
the pins of external skills out as another installer's lock file (:func:`export_lock`).

Every skill is checked first (``agentskills_io_compat_check``: the Agent Skills rules, a
version, instructions, no metadata key a moved field would overwrite, no symbolic link leaving
the folder); one failure refuses the whole export and names each reason, and nothing is written.
Output is staged in a temporary folder next to the destination and moved into place with a
rename; existing files or folders are never overwritten.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from exobrain.artifacts.evolution import in_tree
from exobrain.artifacts.promote import real_scope
from exobrain.errors import ExobrainError, OperationFailed, UsageError
from exobrain.interop.formats import exporter, skills_lock
from exobrain.interop.formats.fields import slugify
from exobrain.interop.formats.skills_lock import LockEntry, LockFormatError
from exobrain.interop.pins import Pin, gather
from exobrain.paths import skill_dir
from exobrain.refs import canonical
from exobrain.registry.entries import Entry
from exobrain.skillmd import SKILL_FILE, read_skill
from exobrain.util.archive import Member, write_zip
from exobrain.util.confine import unsafe_entries
from exobrain.util.fileio import atomic_write_text
from exobrain.util.git import Git
from exobrain.util.staging import staged_file, staged_folder
from exobrain.util.treecopy import copy_tree, iter_tree
from exobrain.workspace import Workspace


@dataclass
class Exported:
    ref: str
    name: str
    moved: list[str]


@dataclass
class ExportReport:
    format: str
    destination: str
    skills: list[Exported] = field(default_factory=list)
    skipped_archived: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "destination": self.destination,
            "skills": [s.__dict__ for s in self.skills],
            "skipped_archived": self.skipped_archived,
        }


def _entries(
    ws: Workspace, refs: tuple[str, ...], scope: str | None
) -> tuple[list[Entry], list[str]]:
    """The declarations to export: the refs given, or every in-tree one of ``scope`` that is
    not archived."""
    if refs and scope:
        raise UsageError("give skill refs or --all, not both")
    if scope is not None:
        scope = real_scope(ws, scope, "--all")
        declared = [e for e in ws.registry(scope).entries if not e.is_override and not e.source]
        archived = [canonical(e) for e in declared if e.lifecycle == "archived"]
        chosen = [e for e in declared if e.lifecycle != "archived"]
        if not chosen:
            raise UsageError(f"{scope} declares no in-tree skill to export")
        return chosen, archived
    if not refs:
        raise UsageError("name the skills to export (skill refs) or use --all SCOPE")
    chosen, seen = [], set()
    for text in refs:
        entry = in_tree(ws, text)
        if entry.identity not in seen:
            seen.add(entry.identity)
            chosen.append(entry)
    return chosen, []


def _prepare(
    ws: Workspace, entries: list[Entry], module: ModuleType, strip: bool
) -> tuple[list[tuple[Entry, Path, str, list[str]]], list[str]]:
    """(entry, folder, exported SKILL.md text, moved fields) for each skill, and the problems."""
    prepared, problems = [], []
    names: dict[str, Entry] = {}
    for entry in entries:
        folder = skill_dir(ws.root, entry.scope, entry.name)
        ref = canonical(entry)
        other = names.setdefault(entry.name, entry)
        if other is not entry:
            problems.append(
                f"{ref}: {canonical(other)} has the same name; a bundle holds one folder per name"
            )
            continue
        try:
            doc = read_skill(folder / SKILL_FILE)
        except ExobrainError as exc:
            problems.append(f"{ref}: {exc.message}")
            continue
        found = module.compat_problems(doc.raw, doc.body, folder.name, strip=strip)
        found += [f"{rel}: {why}" for rel, why in unsafe_entries(folder)]
        if found:
            problems.append(f"{ref} fails agentskills_io_compat_check: " + "; ".join(found))
            continue
        moved = [] if strip else module.moved_fields(doc.meta)
        text = module.export_skill(doc.meta, doc.body, strip=strip)
        prepared.append((entry, folder, text, moved))
    return prepared, problems


def _members(prepared: list[Any]) -> Iterator[Member]:
    """The archive members of the prepared skills: ``<name>/<path>``, SKILL.md translated."""
    for entry, folder, text, _ in prepared:
        for rel, path, link in iter_tree(folder):
            name = f"{entry.name}/{rel}"
            if rel == SKILL_FILE:
                yield name, None, text, None
            else:
                yield name, path, None, link


def _stage_skills(staging: Path, prepared: list[Any]) -> list[Exported]:
    """Write every prepared skill into its own folder under ``staging``."""
    done = []
    for item in prepared:
        target = staging / item[0].name
        target.mkdir(parents=True)
        done.append(_stage_skill(target, *item))
    return done


def _stage_skill(target: Path, entry: Entry, folder: Path, text: str, moved: list[str]) -> Exported:
    copy_tree(folder, target, replace={SKILL_FILE: text})
    return Exported(canonical(entry), entry.name, moved)


def export_skills(
    ws: Workspace,
    refs: tuple[str, ...],
    *,
    fmt: str,
    out: Path | None = None,
    zip_file: Path | None = None,
    all_scope: str | None = None,
    strip: bool = False,
    plugin_name: str | None = None,
    dry_run: bool = False,
) -> ExportReport:
    """Export skills (see the module docstring)."""
    module = exporter(fmt)
    if (out is None) == (zip_file is None):
        raise UsageError("give exactly one destination: -o DIR or --zip FILE")
    if fmt == "claude-plugin" and zip_file is not None:
        raise UsageError("--format claude-plugin writes a folder: use -o DIR")
    entries, archived = _entries(ws, refs, all_scope)
    prepared, problems = _prepare(ws, entries, module, strip)
    if problems:
        raise OperationFailed(
            "nothing exported:\n  " + "\n  ".join(problems),
            hint="fix the skills named above (or leave them out), then export again",
        )
    destination = (zip_file or out).expanduser().absolute()  # type: ignore[union-attr]
    report = ExportReport(fmt, str(destination), skipped_archived=archived)
    if fmt == "claude-plugin":
        _check_free(destination, allow_empty_dir=True)
        targets = [destination]
    elif zip_file is not None:
        _check_free(destination)
        targets = [destination]
    else:
        targets = [destination / e.name for e, *_ in prepared]
        for target in targets:
            _check_free(target)
    if dry_run:
        report.skills = [Exported(canonical(e), e.name, moved) for e, _, _, moved in prepared]
        return report
    # the destination is the user's choice: it is the root its files must stay in
    if fmt == "claude-plugin":
        with staged_folder(destination, root=destination.parent, empty_ok=True) as staging:
            report.skills = _stage_skills(staging / "skills", prepared)
            name = plugin_name or slugify(destination.name) or "exobrain-skills"
            module.write_manifest(
                staging, name, f"{len(prepared)} skills exported from an exobrain"
            )
    elif zip_file is not None:
        with staged_file(destination, root=destination.parent) as archive:
            write_zip(archive, _members(prepared))
        report.skills = [Exported(canonical(e), e.name, moved) for e, _, _, moved in prepared]
    else:
        with ExitStack() as stack:  # every skill staged before the first one moves in
            stagings = [
                stack.enter_context(staged_folder(destination / e.name, root=destination))
                for e, *_ in prepared
            ]
            report.skills = [
                _stage_skill(staging, *item)
                for staging, item in zip(stagings, prepared, strict=True)
            ]
    return report


def _check_free(path: Path, allow_empty_dir: bool = False) -> None:
    if path.is_dir() and allow_empty_dir and not any(path.iterdir()):
        return
    if path.exists() or path.is_symlink():
        raise UsageError(
            f"{path} already exists; export never overwrites",
            hint="remove it or choose another destination",
        )


#: ``--lock`` value → the file name it writes by default.
LOCK_FORMATS = {"skills-lock": skills_lock.PROJECT_LOCK}


@dataclass
class LockedSkill:
    """One skill as the lock names it, and the pin it came from."""

    name: str  # the lock's key: the SKILL.md name
    owner: str
    repo: str
    path: str
    declared_ref: str
    ref: str  # the ref the lock names (a tag naming ``commit``)
    commit: str
    installed: bool


@dataclass
class LockReport:
    format: str
    destination: str
    skills: list[LockedSkill] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "destination": self.destination,
            "skills": [s.__dict__ for s in self.skills],
        }


def export_lock(
    ws: Workspace,
    fmt: str,
    *,
    out: Path | None = None,
    scope: str | None = None,
    agents: tuple[str, ...] = (),
    dry_run: bool = False,
    cache_dir: Path | None = None,
    git: Git | None = None,
) -> LockReport:
    """Write the resolved external skills of the connection (or those ``scope`` declares) as
    a lock file of another installer. Every skill must be expressible there at its commit;
    one that is not refuses the whole export and says why, and nothing is written."""
    if fmt not in LOCK_FORMATS:
        raise UsageError(
            f"--lock {fmt}: unknown lock format", hint=f"use one of {', '.join(LOCK_FORMATS)}"
        )
    destination = (out or Path(LOCK_FORMATS[fmt])).expanduser().absolute()
    _check_free(destination)
    pins, problems = gather(ws, scope=scope, agents=agents, cache_dir=cache_dir, git=git)
    report = LockReport(fmt, str(destination))
    entries: dict[str, LockEntry] = {}
    for pin in pins:
        try:
            entry, ref = _skills_lock_entry(pin)
        except LockFormatError as exc:
            problems.append(f"{pin.where}: {exc}")
            continue
        if entry.name in entries:
            problems.append(
                f"{pin.where}: another exported skill is named {entry.name!r} too; "
                "the lock holds one skill per name"
            )
            continue
        entries[entry.name] = entry
        source = pin.source
        report.skills.append(
            LockedSkill(
                entry.name,
                pin.owner,
                source.repo,
                source.path,
                source.ref,
                ref,
                pin.commit,
                pin.installed,
            )
        )
    if problems:
        raise OperationFailed(
            "nothing exported:\n  " + "\n  ".join(problems),
            hint="fix or pin the skills named above, then export again",
        )
    if not dry_run:
        text = skills_lock.render(entries.values())
        atomic_write_text(destination, text, root=destination.parent)
    return report


def _skills_lock_entry(pin: Pin) -> tuple[LockEntry, str]:
    """The vercel ``skills-lock.json`` entry of a pin, and the ref it names: a tag naming the
    commit (the declared tag, else the first by name), since that tool restores with ``git
    clone --branch`` and so cannot take a commit id."""
    source = pin.source
    try:
        name, kind, url = skills_lock.lock_source(source.repo)
    except LockFormatError as exc:
        raise LockFormatError(f"source.repo {source.repo} {exc}") from None
    if not pin.tags:
        what = (
            f"commit {pin.commit[:12]}"
            if pin.ref_kind == "commit"
            else f"{pin.ref_kind} {source.ref} (at {pin.commit[:12]})"
        )
        raise LockFormatError(
            f"no tag of {source.repo} names {what}; the skills CLI restores branches and tags only "
            "(git clone --branch), so it cannot be pinned to that commit: tag the commit "
            "(git tag NAME COMMIT, then push the tag) or declare source.ref as a tag"
        )
    ref = source.ref if source.ref in pin.tags else pin.tags[0]
    entry = LockEntry(
        name=pin.skill_name,
        source=name,
        source_type=kind,
        ref=ref,
        source_url=url,
        skill_path=skills_lock.skill_path(source.path),
        computed_hash=skills_lock.folder_hash(pin.files),
    )
    skills_lock.check(entry)
    return entry, ref
