"""``exobrain import --update NAME``: take a new upstream release of an imported skill.

The lock's ``upstream`` record says where the skill came from, the upstream content hash at the
last import (``hash``) and the local content hash right after it (``imported``). Three cases:

* upstream unchanged → nothing is written (unless the copy, untouched since it was imported,
  was translated before a repair existed: then it is translated anew, as an update);
* upstream changed, local copy untouched → the new content replaces it (staged, then swapped
  in with renames) and the version goes up: to the upstream's version when that is higher,
  else one patch level;
* both changed → refused: local edits belong in a fork (``exobrain fork``), which records what
  it derives from, so the imported copy can keep following upstream. With ``fork_local`` that
  fork is made here first (a native draft ``NAME-local`` beside the original, keeping the
  edits), then the original takes upstream.

Where the new release is read: a remote repository as the record names it; a local source (a
folder, an archive, a repository on the disk) only where this machine remembers importing it
from (:mod:`exobrain.interop.localsources`) -- a committed record naming a place on the disk is
never followed -- or from a SOURCE given on the command line, which is then remembered. A
record's paths must stay inside their source.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from exobrain.artifacts.evolution import fork
from exobrain.artifacts.frontmatter import in_metadata
from exobrain.artifacts.lockfile import (
    lock_path,
    read_lock,
    renewed,
    update_lock,
)
from exobrain.artifacts.promote import real_scope
from exobrain.errors import ExobrainError, InputFileError, OperationFailed, UsageError
from exobrain.fetch.remote import check_path
from exobrain.interop.formats import importer_for_source_format
from exobrain.interop.formats.bundle import FoundSkill, discover
from exobrain.interop.formats.fields import dump
from exobrain.interop.importer import scope_is_shared
from exobrain.interop.inputs import Opened, classify, is_local, open_source
from exobrain.interop.localsources import recall, remember
from exobrain.interop.plan import (
    Item,
    Plan,
    Reading,
    Report,
    lock_entry_for,
    plan_skill,
    read_skill_text,
    upstream_record,
)
from exobrain.model import GLOBAL
from exobrain.paths import shown, skill_dir
from exobrain.refs import SkillRef, canonical, parse_ref
from exobrain.skillmd import SKILL_FILE, lifted, read_skill, toolkit_field
from exobrain.util.dirhash import file_digests, hash_digests
from exobrain.util.staging import staged_folder
from exobrain.util.treecopy import copy_tree
from exobrain.util.versions import bump, newer
from exobrain.workspace import Workspace, find_declaration


def _find_upstream(src: Opened, path: str, *, given: bool = False) -> FoundSkill:
    """The skill at ``path`` inside the re-opened source (with its plugin context); a source
    ``given`` on the command line may also be the skill's folder itself."""
    rel = path[len(src.path) :].strip("/") if src.path and path.startswith(src.path) else path
    rel = "" if rel == "." else rel
    for found in discover(src.root).skills:
        if found.rel == rel:
            return found
    folder = src.root / rel if rel else src.root
    if given and not (folder / SKILL_FILE).is_file() and (src.root / SKILL_FILE).is_file():
        return FoundSkill(src.root, "", None)
    if not (folder / SKILL_FILE).is_file():
        raise OperationFailed(
            f"the upstream {src.display(rel)} holds no SKILL.md any more",
            hint="the skill moved or was removed upstream; the local copy is kept as it is",
        )
    return FoundSkill(folder, rel, None)


def _translated_anew(adapter: ModuleType, src: Opened, found: FoundSkill, local_dir: Path) -> bool:
    """Whether today's translation of the (unchanged) upstream SKILL.md differs from the
    imported copy's, version aside: a copy imported before a repair existed (an over-long
    description kept as it was) is then brought in again, repaired."""
    try:
        plan = plan_skill(adapter, src, found, read_skill_text(found), local_dir.name)
        local = read_skill(local_dir / SKILL_FILE)
    except ExobrainError:
        return False
    if plan.item.problem:
        return False
    return {**lifted(plan.meta), "version": None} != {**lifted(local.meta), "version": None} or (
        plan.body != local.body
    )


def _fork_name(ws: Workspace, scope: str, name: str) -> str:
    """``NAME-local``, or ``NAME-local-2``, … when an earlier fork took the name."""
    taken = {e.name for e in ws.registry(scope).entries if not e.is_override}
    candidate, number = f"{name}-local", 1
    while candidate in taken or skill_dir(ws.root, scope, candidate).exists():
        number += 1
        candidate = f"{name}-local-{number}"
    return candidate


def _next_version(current: str, upstream: str | None) -> str:
    bumped = bump(current, "patch")
    if upstream and newer(upstream, bumped):
        return upstream
    return bumped


def _inside_source(value: object) -> bool:
    """Whether a record's ``base`` or ``path`` is a path inside its source ("" for its root)."""
    if value in ("", ".", None):
        return True
    if not isinstance(value, str):
        return False
    try:
        check_path(value)
    except OperationFailed:
        return False
    return True


def upstream_location(
    ws: Workspace, record: dict[str, Any], folder: Path, source: str | None, where: str
) -> tuple[str, str, str, str | None]:
    """(kind, url, path inside, ref) of the upstream to read: ``source`` when given; for a
    local source, the place this machine remembers (:mod:`exobrain.interop.localsources`),
    never one a committed record names; else the lock's record (a remote repository).
    ``where`` names the lock entry in messages."""
    for field in ("base", "path"):
        if not _inside_source(record.get(field)):
            raise InputFileError(
                f"{where}: upstream {field} {record.get(field)!r} is not a path inside its "
                f"source: a committed record may not aim an update outside it",
                hint="restore the lock entry from git, or import the skill again",
            )
    if source is not None:
        kind, url, path, ref = classify(source)
        return kind, url, path, ref
    base, ref = str(record.get("base") or ""), record.get("ref")
    if not is_local(record["kind"], record["url"]):
        return str(record["kind"]), str(record["url"]), base, ref
    remembered = recall(ws.root, folder)
    if remembered is None:
        raise OperationFailed(
            f"{where}: imported from a local source (a folder, an archive or a repository on "
            f"a machine's own disk), which a lock never names and this machine does not know",
            hint=f"update it from that source yourself: exobrain import --update "
            f"{folder.name} SOURCE",
        )
    return remembered[0], remembered[1], base, ref


def update_skill(
    ws: Workspace,
    text: str,
    *,
    into: str | None = None,
    source: str | None = None,
    allow_local: bool | None = None,
    dry_run: bool = False,
    fork_local: bool = False,
) -> Report:
    """Re-import one skill from its recorded upstream, or from ``source`` (see the module
    docstring)."""
    ref = parse_ref(text)
    if into is not None:
        ref = SkillRef(ref.name, real_scope(ws, into, "--into"))
    entry = find_declaration(ws, ref)
    name, scope = entry.name, entry.scope
    locked = read_lock(ws.root, scope)["skills"].get(name) if not entry.source else None
    record = locked.get("upstream") if locked else None
    if (
        not locked
        or not isinstance(record, dict)
        or not {"kind", "url", "path", "hash"} <= set(record)
    ):
        raise UsageError(
            f"{canonical(entry)} was not imported (its lock entry in "
            f"{shown(lock_path(ws.root, scope), ws.root)} has no upstream record)",
            hint="import a skill with exobrain import SOURCE first (if an import of it was "
            "interrupted, run that import again: it finishes it)",
        )
    adapter = importer_for_source_format(str(record.get("format", "agentskills")))
    local_dir = skill_dir(ws.root, scope, name)
    where = f"{shown(lock_path(ws.root, scope), ws.root)}: {canonical(entry)}"
    kind, url, base, git_ref = upstream_location(ws, record, local_dir, source, where)
    reason = "as given" if source is not None else "as recorded at import"
    report = Report(url, adapter.NAME, reason, scope, dry_run)
    with open_source(kind, url, base, git_ref, root=ws.root, allow_local=allow_local) as src:
        found = _find_upstream(src, record["path"], given=source is not None)
        item = Item(name, record["path"], ref=canonical(entry), version=locked["version"])
        report.items.append(item)
        same_upstream = hash_digests(file_digests(found.folder)) == record["hash"]
        untouched = hash_digests(file_digests(local_dir)) == record.get("imported", locked["hash"])
        if same_upstream and not (untouched and _translated_anew(adapter, src, found, local_dir)):
            item.status = "up to date"
            return report
        if not untouched and not fork_local:
            raise OperationFailed(
                f"{canonical(entry)}: upstream changed and so did the local copy; refusing to "
                f"overwrite the local edits",
                hint=f"keep your edits as a fork: exobrain fork {canonical(entry)} --into "
                f"{scope} --name {name}-local; then restore the imported copy (git "
                f"checkout -- {shown(local_dir, ws.root)}) and run exobrain import "
                f"--update {name} again (or let --fork-local do all of it)",
            )
        reading: Reading
        try:
            reading = read_skill_text(found)
        except ExobrainError as exc:
            reading = exc
        policy = ws.registry(GLOBAL).policy
        shared = scope_is_shared(ws, scope)
        plan = plan_skill(adapter, src, found, reading, name, policy, shared=shared)
        if plan.item.problem:
            raise OperationFailed(
                f"{canonical(entry)}: the new upstream cannot be imported: {plan.item.problem}",
                hint="the local copy is unchanged",
            )
        version = _next_version(locked["version"], plan.upstream_version)
        plan.meta = in_metadata({**lifted(plan.meta), "version": version})
        plan.text = dump(plan.meta, plan.body)
        item.previous, item.version = locked["version"], version
        item.repairs, item.flags, item.notes = plan.item.repairs, plan.item.flags, plan.item.notes
        item.hidden = plan.item.hidden
        if same_upstream:
            item.notes.append("upstream unchanged: the copy is translated and repaired anew")
        item.status = "would update" if dry_run else "updated"
        if not untouched:  # fork_local: the edits go to a fork before upstream replaces them
            fork_name = _fork_name(ws, scope, name)
            owner = None if ws.connection.person or ws.my_ids else entry.owner
            done = fork(ws, canonical(entry), scope, name=fork_name, owner=owner, dry_run=dry_run)
            item.forked = f"skill:{fork_name}@{scope}"
            item.notes.append(f"the local edits: {done.summary}")
        if not dry_run:
            _swap(ws, scope, name, local_dir, plan, src, adapter)
    return report


def _swap(
    ws: Workspace,
    scope: str,
    name: str,
    local_dir: Path,
    plan: Plan,
    src: Opened,
    adapter: ModuleType,
) -> None:
    """Stage the new copy, swap it in, then rewrite the lock entry."""
    with staged_folder(local_dir, root=ws.root, replace=True) as staging:
        upstream, local = copy_tree(plan.found.folder, staging, replace={SKILL_FILE: plan.text})
    record = upstream_record(src, plan.found, adapter, upstream, local, plan.item.repairs)
    entry = lock_entry_for(str(toolkit_field(plan.meta, "version")), local, record, plan.powers)
    update_lock(ws.root, scope, {name: entry}, merge=renewed)
    remember(ws.root, local_dir, src)
