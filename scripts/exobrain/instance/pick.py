"""``exobrain harvest --pick NAME --into SCOPE``: bring one instance skill into the seed.

The skill's files are read from the instance's commit (never from its working tree, and never
written back), built in a temporary folder beside the destination and moved in with one
rename. The skill is declared in the chosen shared scope (global, seed, a group or a team) as
a new ``optional`` skill owned by its owner in the instance, with a note saying where it came
from, and locked when it carries a version. Being new in a shared scope, it then faces the
authoring gate like any other: ``authoring-review`` asks for its proof.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from exobrain.artifacts.lockfile import lock_entry, replaced, update_lock
from exobrain.errors import UsageError
from exobrain.gate.proof import kind_of
from exobrain.gate.review import skill_folder
from exobrain.instance.harvest import InstanceReport, harvest
from exobrain.model import Identity
from exobrain.paths import shown, skill_dir
from exobrain.registry.editor import edit_registry, ordered_entry
from exobrain.scopes import PERSONAL_TYPES, check_scope_path, scope_at
from exobrain.skillmd import SKILL_FILE, quick_version
from exobrain.util.repository import Repository
from exobrain.util.staging import staged_folder
from exobrain.util.versions import is_version
from exobrain.workspace import Workspace


@dataclass
class Picked:
    name: str
    scope: str
    source: str
    origin: str  # the skill folder in the instance
    commit: str
    owner: str
    files: list[str]
    version: str | None
    proof: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "into": self.scope,
            "instance": self.source,
            "from": self.origin,
            "commit": self.commit,
            "owner": self.owner,
            "files": self.files,
            "version": self.version,
            "proof": self.proof,
        }


def candidates(reports: list[InstanceReport], name: str) -> list[tuple[InstanceReport, str]]:
    """(instance, skill folder) for every only-there skill called ``name``."""
    return [
        (r, fact.path.rstrip("/"))
        for r in reports
        for fact in r.facts
        if fact.kind == "only-there" and fact.skill == name
    ]


def pick(
    ws: Workspace,
    sources: list[str],
    name: str,
    into: str,
    *,
    instance: str | None = None,
    owner: str | None = None,
) -> Picked:
    """Copy the only-there skill ``name`` into the shared scope ``into`` and declare it."""
    scope = check_scope_path(into)
    found = scope_at(ws.root, scope, ws.config)
    if found is None:
        raise UsageError(f"--into {into}: not a scope of the seed (no {scope}/AGENTS.md)")
    if found.type in PERSONAL_TYPES:
        raise UsageError(
            f"--into {into}: a {found.type} scope; a harvested skill is shared",
            hint="pick into global, seed, a group or a team",
        )
    if instance is not None:
        sources = [s for s in sources if s == instance] or [instance]
    matches = candidates(harvest(ws.root, sources), name)
    if not matches:
        raise UsageError(
            f"no instance has a skill {name!r} that the seed lacks",
            hint="run exobrain harvest to see the only-there skills",
        )
    if len(matches) > 1:
        places = ", ".join(f"{folder} in {r.source}" for r, folder in matches)
        raise UsageError(
            f"{name!r} is only-there in more than one place: {places}",
            hint="choose one with --instance SOURCE",
        )
    report, folder = matches[0]
    target = skill_dir(ws.root, scope, name)
    if target.exists() or target.is_symlink():
        raise UsageError(f"{shown(target, ws.root)} already exists in the seed")
    origin_scope = folder.rsplit("/skills/", 1)[0] if "/skills/" in folder else "global"
    declared = report.snap.declarations.get(Identity(origin_scope, name), {}) if report.snap else {}
    who = owner or declared.get("owner") or ws.connection.person
    if not who:
        raise UsageError(
            f"{name}: no owner known (the instance does not declare it)", hint="pass --owner ID"
        )
    note = f"harvested from {report.source} at {(report.commit or '')[:12]} ({folder})"
    try:
        with edit_registry(ws.root, scope) as edit:
            if edit.find(name=name, **{"from": None, "source": None}):
                raise UsageError(f"{name} is already declared in {edit.rel}")
            files = _copy_from_commit(report, folder, target, root=ws.root)
            edit.upsert(
                ordered_entry({"name": name, "owner": who, "tier": "optional", "notes": note}),
                name=name,
                **{"from": None, "source": None},
            )
    except BaseException:
        if target.exists():  # we made it a moment ago; the registry was not written
            shutil.rmtree(target)
        raise
    version = quick_version(target / SKILL_FILE)
    if is_version(version):
        update_lock(ws.root, scope, {name: lock_entry(target, str(version))}, merge=replaced)
    rel = skill_folder(scope, name)
    return Picked(
        name,
        scope,
        report.source,
        folder,
        report.commit or "",
        who,
        [f"{rel}/{f}" for f in files],
        version if is_version(version) else None,
        [f"{rel}/{f}" for f in files if kind_of(f) is not None],
    )


def _copy_from_commit(
    report: InstanceReport, folder: str, target: Path, *, root: Path
) -> list[str]:
    """Write the folder's files as committed in the instance; refuses links and odd paths."""
    git = Repository(report.location)
    listing = git.run(
        "ls-tree", "-r", "-z", "--full-tree", report.commit or "HEAD", "--", folder + "/"
    )
    entries: dict[str, tuple[str, str]] = {}
    for record in filter(None, listing.split("\0")):
        info, path = record.split("\t", 1)
        mode, kind, oid = info.split()
        inside = PurePosixPath(path).relative_to(folder).as_posix()
        if kind != "blob" or mode == "120000":
            raise UsageError(
                f"{path} in {report.source} is a {'link' if kind == 'blob' else kind}; "
                f"copy this skill by hand"
            )
        if any(part in ("", ".", "..", ".git") for part in inside.split("/")):
            raise UsageError(f"{path} in {report.source}: unexpected path")
        entries[inside] = (mode, oid)
    blobs = git.read({inside: oid for inside, (_, oid) in entries.items()})
    with staged_folder(target, root=root) as staging:
        for inside, (mode, _) in sorted(entries.items()):
            dest = staging / inside
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(blobs[inside])
            os.chmod(dest, 0o755 if mode == "100755" else 0o644)
    return sorted(entries)
