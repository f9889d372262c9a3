"""What the site shows, gathered from the repository with the toolkit's own readers.

Which skills: by default every skill declared in a shared scope (:func:`shared_view`: global,
seed, groups, teams — never a person's or a host's scope, whoever runs the build); with
``everything``, every scope of the repository, as ``skills-status --all`` lists them. Only
registries of the chosen scopes are read for declarations and overrides, so a published site
never tells what a person's registry says.

Each skill's facts come from where the commands get them: the declaration (owner, default
tier, lifecycle), the SKILL.md as ``exobrain search`` reads it (frontmatter, body, triggers,
tags, personas), the folder's file digests and its ``skills.lock.json`` entry (the lock
state), the signal ledgers (quality as ``exobrain quality`` scores it, uses per day, votes),
the links of its frontmatter resolved as ``exobrain links`` resolves them, and git for the
last change. A skill whose SKILL.md cannot be read is still listed, with a warning.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

from exobrain.artifacts.lockfile import lock_state, read_lock
from exobrain.errors import ExobrainError
from exobrain.model import GLOBAL
from exobrain.paths import shown
from exobrain.registry.entries import Entry
from exobrain.scopes import SEED, build_chain
from exobrain.search.artifact import Artifact
from exobrain.search.corpus import View, repository_view, shared_view
from exobrain.search.docs import read_doc
from exobrain.search.ranking import load_search_weights
from exobrain.signals.aggregate import Aggregate, aggregate
from exobrain.signals.quality import load_weights, quality_all
from exobrain.signals.timestamps import day_label
from exobrain.signals.view import summary
from exobrain.site.data import LINK_TYPES, USAGE_DAYS, search_settings
from exobrain.skillmd import as_list, links_of, toolkit_field, unreadable_skill
from exobrain.util.dirhash import file_digests
from exobrain.util.progress import Progress
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

DAY = 86400
TIMELINE_WEEKS = 52


def gather(
    ws: Workspace,
    *,
    everything: bool = False,
    import_from: str = "",
    title: str | None = None,
    now: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The site's data (the dict :func:`exobrain.site.build.build_site` takes); ``title``
    None: the repository's own name and "skills"."""
    now = time.time() if now is None else now
    view = repository_view(ws) if everything else shared_view(ws)
    skills = [a for a in view.declared() if a.declaration is not None]
    agg = aggregate(ws)
    refs = [a.ref for a in skills]
    scores = {q.skill: q.score for q in quality_all(agg, refs, load_weights(ws.root), now)}
    entries = [e for s in view.scopes for e in ws.registry(s.path).entries]
    changed = last_changes(ws.root, [a.folder for a in skills if a.folder])
    today = int(now // DAY)
    rows = []
    for k, artifact in enumerate(skills):
        rows.append(
            _skill(ws, view, artifact, agg, scores.get(artifact.ref), entries, changed, today)
        )
        if progress and (k + 1) % 200 == 0:
            progress("reading skills", k + 1, len(skills))
    return {
        "site": {
            "title": title if title is not None else f"{repository_name(ws.root)} skills",
            "generated_at": dt.datetime.fromtimestamp(now, dt.UTC).date().isoformat(),
            "repo": import_from,
        },
        "scopes": [_scope(ws, s.path, s.type) for s in view.scopes],
        "skills": rows,
        "search": search_settings(load_search_weights(ws.root)),
    }


def repository_name(root: Path) -> str:
    """The repository's own name: the last part of its origin remote's URL (``acme/skills.git``
    → ``skills``), else its folder's name (a clone's folder may be called anything)."""
    from exobrain.util.git import Git

    done = Git(own_env=True).run(["config", "--get", "remote.origin.url"], cwd=root, check=False)
    url = done.stdout.decode("utf-8", "replace").strip().rstrip("/")
    name = url.rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git") if url else ""
    return name or root.name


def _scope(ws: Workspace, path: str, kind: str) -> dict[str, Any]:
    if path in (GLOBAL, SEED):
        chain = [GLOBAL] if path == GLOBAL else [GLOBAL, SEED]
    else:
        chain = build_chain(ws.root, [path], ws.config).paths
    return {"name": path, "kind": kind, "chain": chain}


def _skill(
    ws: Workspace,
    view: View,
    a: Artifact,
    agg: Aggregate,
    quality: float | None,
    entries: list[Entry],
    changed: dict[str, str],
    today: int,
) -> dict[str, Any]:
    entry = a.declaration
    assert entry is not None
    meta, body, description = _document(ws, a)
    files, digests = _files(ws, a)
    uses = agg.usage.get(a.ref, {})
    version = toolkit_field(meta, "version")
    row: dict[str, Any] = {
        "name": a.name,
        "home": a.home,
        "description": description,
        "owner": entry.owner or "",
        "tier": str(entry.tier),
        "lifecycle": str(entry.lifecycle),
        "version": str(version) if version is not None else "",
        "quality": None if quality is None else round(quality, 4),
        "usage": [uses.get(day, 0) for day in range(today - USAGE_DAYS + 1, today + 1)],
        "tags": [str(t) for t in as_list(meta.get("tags"))],
        "personas": [str(p) for p in as_list(meta.get("personas"))],
        "triggers": [str(t) for t in as_list(meta.get("triggers"))],
        "last_change": changed.get(a.folder or "", ""),
        "body": body,
        "frontmatter": meta,
        "files": files,
        "folder": a.folder if files else "",
        "lock": _lock(ws, entry, digests, version),
        "declarations": [_mention(ws, e) for e in entries if e.identity == entry.identity],
        "links": _links(view, meta),
        "signals": {
            "summary": _flat(summary(agg, a.ref)),
            "timeline": _timeline(agg, a.ref, today),
        },
    }
    if entry.source:
        row["frontmatter"] = {**meta, "source": dict(entry.source)}
    return row


def _document(ws: Workspace, a: Artifact) -> tuple[dict[str, Any], str, str]:
    """Frontmatter, body and description, as the search index reads them."""
    if a.path is None:
        return {}, "", ""
    try:
        doc = read_doc(a)
    except ExobrainError as exc:
        ws.findings.append(unreadable_skill(ws.root, a.path, exc.message))
        return {}, "", ""
    if doc.problem:
        ws.findings.append(unreadable_skill(ws.root, a.path, str(a.path) + doc.problem))
    return doc.meta, doc.fields["instructions"], doc.description


def _files(ws: Workspace, a: Artifact) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Each file of the skill folder with its size and SHA-256 (links not followed)."""
    if a.folder is None or not os.path.isdir(a.folder):
        return [], {}
    try:
        digests = file_digests(Path(a.folder))
    except ExobrainError as exc:  # a FIFO or device in the folder: skills-validate says more
        ws.findings.append(unreadable_skill(ws.root, Path(a.folder), exc.message))
        return [], {}
    files = [
        {"path": rel, "size": os.lstat(os.path.join(a.folder, rel)).st_size, "sha256": digest}
        for rel, digest in sorted(digests.items())
    ]
    return files, digests


def _lock(ws: Workspace, entry: Entry, digests: dict[str, str], version: Any) -> dict[str, Any]:
    if entry.source:
        source = entry.source
        return {
            "state": "external",
            "repo": source["repo"],
            "path": source["path"],
            "ref": source["ref"],
        }
    try:
        locked = read_lock(ws.root, entry.scope)["skills"].get(entry.name)
    except ExobrainError as exc:
        return {"state": "lock unreadable", "problem": exc.message}
    return lock_state(digests, None if version is None else str(version), locked)


def _mention(ws: Workspace, e: Entry) -> dict[str, Any]:
    folder = ws.root if e.scope == GLOBAL else ws.root / e.scope
    note = "forced" if e.force else ""
    if e.notes:
        note = f"{note}; {e.notes}" if note else e.notes
    return {
        "scope": e.scope,
        "kind": "override" if e.is_override else "declaration",
        "tier": str(e.tier),
        "file": shown(folder / "skills.json", ws.root),
        "note": note,
    }


def _links(view: View, meta: dict[str, Any]) -> list[dict[str, str]]:
    """Outgoing links, resolved among the visible skills (unresolved ones kept as written)."""
    found = []
    for predicate in LINK_TYPES:
        for target in links_of(meta, predicate):
            hit = view.link_target(target)
            found.append(
                {"type": predicate, "target": hit.ref.removeprefix("skill:") if hit else target}
            )
    return found


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"votes": {"up": 1}}`` → ``{"votes up": 1}``: one table row per number."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        label = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, label + " ") if value else {label: "none"})
        else:
            out[label] = "—" if value is None else value
    return out


def _timeline(agg: Aggregate, ref: str, today: int) -> list[dict[str, Any]]:
    """Uses and (latest) votes per week over the last year, oldest first."""
    first = today - 7 * TIMELINE_WEEKS + 1
    weeks: list[dict[str, Any]] = [
        {"date": day_label(first + 7 * w), "up": 0, "down": 0, "uses": 0}
        for w in range(TIMELINE_WEEKS)
    ]
    for day, count in agg.usage.get(ref, {}).items():
        if first <= day <= today:
            weeks[(day - first) // 7]["uses"] += count
    for seconds, value in agg.votes_of(ref).values():
        day = int(seconds // DAY)
        if first <= day <= today:
            weeks[(day - first) // 7]["up" if value > 0 else "down"] += 1
    return weeks


def last_changes(root: Path, folders: list[str]) -> dict[str, str]:
    """Each skill folder's last commit date (ISO), from one walk of git's history; {} outside
    a git repository."""
    prefixes = {os.path.relpath(f, root).replace(os.sep, "/") + "/": f for f in folders}
    try:
        out = Repository(root).run(
            "log", "--format=%x00%cs", "--name-only", "--no-renames", "--relative", "--", "."
        )
    except ExobrainError:
        return {}
    found: dict[str, str] = {}
    date = ""
    for line in out.split("\n"):
        if line.startswith("\0"):
            date = line[1:]
            if len(found) == len(prefixes):
                break
            continue
        if not line:
            continue
        folder = _folder_of(line, prefixes)
        if folder is not None and folder not in found:
            found[folder] = date
    return found


def _folder_of(path: str, prefixes: dict[str, str]) -> str | None:
    """The skill folder ``path`` lies in (``<home>/skills/<name>/…``), if one was asked for."""
    parts = path.split("/")
    for k, part in enumerate(parts[:-2]):
        if part == "skills":
            hit = prefixes.get("/".join(parts[: k + 2]) + "/")
            if hit is not None:
                return hit
    return None
