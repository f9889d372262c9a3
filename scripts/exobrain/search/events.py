"""``exobrain events --since CURSOR``: what changed in the chain between a commit and HEAD.

For agents that subscribe: they keep the ``head`` of one answer and pass it as the next
``--since``. Events, from committed history only (``git diff CURSOR HEAD``):

* ``skill.added`` / ``skill.removed`` — a declaration appeared in or left a visible registry;
* ``skill.lifecycle`` — a declaration's lifecycle moved (``from`` → ``to``);
* ``skill.updated`` — a visible skill's ``SKILL.md`` changed (with its version before/after);
* ``knowledge.added`` / ``knowledge.updated`` / ``knowledge.removed`` — a visible document;
* ``skill.invoked`` — a usage line under ``signals/`` about a visible skill (an agent used
  it: ``agent``, ``by``, ``ts``, and ``via`` when it was used as a skill it supersedes);
* ``signal`` — any other ledger line added about a visible skill.

``exobrain events --follow`` (:mod:`exobrain.search.follow`) waits for new commits and new
ledger lines and prints each event as it comes.

Visibility is today's view (:mod:`exobrain.search.corpus`): another person's scope or private
``local/`` folder never produces an event.
"""

from __future__ import annotations

import re
from typing import Any

from exobrain.errors import UsageError
from exobrain.model import GLOBAL
from exobrain.registry.entries import REGISTRY_FILE, Entry, registry_from_text
from exobrain.search.artifact import home_of
from exobrain.search.corpus import KNOWLEDGE_DIR, PERSONAL, PRIVATE_DIR, View, open_view
from exobrain.signals.ledger import ledger_owner
from exobrain.signals.voters import people_among
from exobrain.util import boundedjson
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

SIGNALS_DIR = "signals"
_VERSION = re.compile(r"^version:[ \t]*[\"']?([0-9A-Za-z.+-]+)", re.MULTILINE)


def events_since(ws: Workspace, cursor: str) -> dict[str, Any]:
    git = Repository(ws.root, own_env=True)
    base = git.commit_of(cursor)
    if base is None:
        raise UsageError(
            f"--since {cursor!r} is not a commit of this repository",
            hint='pass the "head" of a previous answer, a commit id or a tag',
        )
    head = git.commit_of("HEAD")
    if head is None:
        raise UsageError("the repository has no commit yet")
    view = open_view(ws)
    changed = _changed_files(git, base, head)
    events: list[dict[str, Any]] = []
    events += _registry_events(git, view, base, head, changed)
    events += _file_events(git, view, base, head, changed)
    signals = (
        _signal_events(ws, git, view, base, head)
        if any(p.startswith(f"{SIGNALS_DIR}/") for p in changed)
        else []
    )
    order = {
        "skill.added": 0,
        "skill.lifecycle": 1,
        "skill.updated": 2,
        "skill.removed": 3,
        "knowledge.added": 4,
        "knowledge.updated": 5,
        "knowledge.removed": 6,
    }
    events.sort(key=lambda e: (order[e["type"]], e["ref"]))
    return {"since": base, "head": head, "events": events + signals}


def _changed_files(git: Repository, base: str, head: str) -> dict[str, str]:
    """Path → git status letter (A, M, D; renames as a delete and an add)."""
    out = git.run(
        "diff", "--name-status", "-z", "--no-renames", "--relative", "--no-ext-diff", base, head
    )
    fields = [f for f in out.split("\0") if f]
    return {fields[i + 1]: fields[i][0] for i in range(0, len(fields) - 1, 2)}


def _scope_of_registry(path: str) -> str | None:
    if path == REGISTRY_FILE:
        return GLOBAL
    if path.endswith(f"/{REGISTRY_FILE}"):
        return path[: -len(REGISTRY_FILE) - 1]
    return None


def _registry_events(
    git: Repository, view: View, base: str, head: str, changed: dict[str, str]
) -> list[dict[str, Any]]:
    visible = view.scope_paths
    paths = [p for p in changed if _scope_of_registry(p) in visible]
    if not paths:
        return []
    blobs = git.read({f"{rev}:{path}": f"{rev}:{path}" for rev in (base, head) for path in paths})
    events = []
    for path in paths:
        scope = _scope_of_registry(path)
        assert scope is not None
        before = _declarations(view, scope, blobs.get(f"{base}:{path}"))
        after = _declarations(view, scope, blobs.get(f"{head}:{path}"))
        for key, entry in after.items():
            ref = f"skill:{entry.name}@{home_of(entry)}"
            if key not in before:
                events.append(
                    {
                        "type": "skill.added",
                        "ref": ref,
                        "lifecycle": entry.lifecycle,
                        "tier": entry.tier,
                        "owner": entry.owner,
                    }
                )
            elif before[key].lifecycle != entry.lifecycle:
                events.append(
                    {
                        "type": "skill.lifecycle",
                        "ref": ref,
                        "from": before[key].lifecycle,
                        "to": entry.lifecycle,
                    }
                )
        for key, entry in before.items():
            if key not in after:
                events.append(
                    {"type": "skill.removed", "ref": f"skill:{entry.name}@{home_of(entry)}"}
                )
    return events


def _declarations(view: View, scope: str, blob: bytes | None) -> dict[tuple[Any, ...], Entry]:
    if blob is None:
        return {}
    registry = registry_from_text(view.ws.root, scope, blob.decode("utf-8", "replace"))
    found: dict[tuple[Any, ...], Entry] = {}
    for entry in registry.entries:
        if not entry.is_override:
            found.setdefault(entry.identity, entry)
    return found


def _file_events(
    git: Repository, view: View, base: str, head: str, changed: dict[str, str]
) -> list[dict[str, Any]]:
    """SKILL.md edits of visible in-tree skills and visible knowledge documents."""
    skills = {}
    for artifact in view.skills():
        if artifact.declaration is not None and not artifact.declaration.source:
            folder = "" if artifact.scope == GLOBAL else f"{artifact.scope}/"
            skills[f"{folder}skills/{artifact.name}/SKILL.md"] = artifact
    events = []
    kinds = {"A": "added", "M": "updated", "D": "removed"}
    edited = [p for p, status in changed.items() if p in skills and status == "M"]
    blobs = git.read({f"{rev}:{p}": f"{rev}:{p}" for rev in (base, head) for p in edited})
    for path in edited:
        events.append(
            {
                "type": "skill.updated",
                "ref": skills[path].ref,
                "version": {
                    "from": _version(blobs.get(f"{base}:{path}")),
                    "to": _version(blobs.get(f"{head}:{path}")),
                },
            }
        )
    for path, status in changed.items():
        if path in skills:
            continue
        knowledge = _knowledge_ref(view, path)
        if knowledge and status in kinds:
            events.append({"type": f"knowledge.{kinds[status]}", "ref": knowledge})
    return events


def _version(blob: bytes | None) -> str | None:
    match = _VERSION.search(blob.decode("utf-8", "replace")) if blob else None
    return match.group(1) if match else None


def _knowledge_ref(view: View, path: str) -> str | None:
    """The reference of a knowledge document at ``path`` when a visible scope holds it
    directly (not through a nested scope) and it is not private to someone else."""
    if not path.endswith(".md"):
        return None
    best = None
    for scope in view.scopes:
        prefix = f"{KNOWLEDGE_DIR}/" if scope.path == GLOBAL else f"{scope.path}/{KNOWLEDGE_DIR}/"
        if path.startswith(prefix):
            rest = path[len(prefix) :]
            parts = rest.split("/")
            if any(p.startswith(".") for p in parts):
                continue
            if PRIVATE_DIR in parts[:-1] and scope.type not in PERSONAL:
                continue
            best = f"knowledge:{rest[:-3]}@{scope.path}"
    return best


def _signal_events(
    ws: Workspace, git: Repository, view: View, base: str, head: str
) -> list[dict[str, Any]]:
    """Ledger lines added between the two commits, about skills this view can see, written
    in their author's own ledger (``signals/<by>/…``) by a person of the repository (a
    stranger's folder counts nowhere: :mod:`exobrain.signals.voters`)."""
    visible = {a.ref for a in view.skills()}
    out = git.run("diff", "-U0", "--no-ext-diff", "--relative", base, head, "--", f"{SIGNALS_DIR}/")
    events = []
    owner = None
    for line in out.split("\n"):
        if line.startswith("+++ "):
            path = line[4:].removeprefix("b/")
            owner = ledger_owner(path) if path.count("/") == 2 else None
            continue
        if not line.startswith("+"):
            continue
        try:
            record = boundedjson.loads(line[1:])
        except ValueError:
            continue
        if (
            not isinstance(record, dict)
            or record.get("skill") not in visible
            or record.get("by") != owner
        ):
            continue
        events.append(signal_event(record))
    people = people_among(ws, {str(e["by"]) for e in events})
    events = [e for e in events if e["by"] in people]
    events.sort(key=lambda e: (str(e.get("ts")), e["ref"]))
    return events


def signal_event(record: dict[str, Any]) -> dict[str, Any]:
    """The event of one ledger line: ``skill.invoked`` for a use (with the agent and, for a
    superseded skill's use, the ``via`` reference), ``signal`` for anything else."""
    if record.get("kind") == "usage" and record.get("snapshot") is not True:
        event = {"type": "skill.invoked", "ref": record["skill"], "agent": record.get("agent")}
        if record.get("via"):
            event["via"] = record["via"]
        return {**event, "by": record.get("by"), "ts": record.get("ts")}
    return {
        "type": "signal",
        "ref": record["skill"],
        "kind": record.get("kind"),
        "value": record.get("value"),
        "by": record.get("by"),
        "ts": record.get("ts"),
    }
