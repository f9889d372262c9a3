"""Making a scope: the folder, its ``AGENTS.md`` (the flag that makes it a scope) and an empty
``skills.json`` — the one way the toolkit creates scopes, for ``exobrain scope new`` and for
connect-agent when it offers to create a missing person, host or group scope.

The collection decides the type (``groups/acme`` is a group, ``people/dana/hosts/lap1`` a
host), so a path is accepted only where ``scopes.json`` says scopes live: pairs of a collection
folder and a name, every ancestor already a scope. The registry is written first and the flag
last, so an interrupted run never leaves a scope without its registry.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import UsageError
from exobrain.paths import shown
from exobrain.registry.entries import SCHEMA_FILE, registry_path
from exobrain.scopes import (
    LOCAL,
    SCOPE_FLAG,
    SEED,
    ScopeConfig,
    ancestor_paths,
    check_scope_path,
    scope_at,
)
from exobrain.util.fileio import atomic_write_text, dump_json, read_text

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
GITIGNORE = ".gitignore"
#: What the root .gitignore gets so that no one's local/ is ever committed.
LOCAL_RULE = "# this machine's own scope (knowledge/exobrain/scopes.md): never committed\n/local/\n"

AGENTS_TEMPLATE = """\
# {name}

The {kind} scope `{path}` of this exobrain.

- Its skills live in `skills/<name>/` here and are declared in `skills.json` beside this file;
  a declaration reaches only its owner until it is forced or someone opts in
  (`skills-promote NAME --from {path} --to TIER`).
- `connect-agent AGENT --scope {path}` (or the matching `--group`, `--person`, `--host`)
  brings this scope into a machine's chain.
- How scopes, tiers and the authoring gate work: `knowledge/exobrain/skills.md`.

Instructions for agents working in this scope go below.
"""


@dataclass
class NewScope:
    """A scope made (or, with ``dry_run``, that would be made) and the files written."""

    path: str
    type: str
    files: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "scope": self.path,
            "type": self.type,
            "files": self.files,
            "connect": self.connect_flags,
        }

    @property
    def connect_flags(self) -> str:
        """The connect-agent flags that bring this scope in, as the docs write them: ``--group
        acme``, ``--person dana``, ``--person dana --host lap1``, else ``--scope PATH``."""
        parts = self.path.split("/")
        if self.type == "group" and len(parts) == 2:
            return f"--group {parts[1]}"
        if self.type == "person" and len(parts) == 2:
            return f"--person {parts[1]}"
        if self.type == "host" and len(parts) == 4 and parts[2] == "hosts":
            return f"--person {parts[1]} --host {parts[3]}"
        return f"--scope {self.path}"


def scope_type(root: Path, config: ScopeConfig, path: str) -> str:
    """The type a new scope at ``path`` gets from its collection; refuses a path that cannot
    be a scope (wrong shape, unknown collection, a missing ancestor, an existing scope)."""
    text = check_scope_path(path)
    if text in ("global", SEED):
        raise UsageError(f"{text} is not made with scope new: it is the root or the seed")
    parts = text.split("/")
    collections = ", ".join(folder for folder, _ in config.collections)
    if len(parts) % 2:
        raise UsageError(
            f"{path}: a scope path is COLLECTION/NAME (e.g. groups/acme, people/dana/hosts/lap1)",
            hint=f"collections here: {collections} (scopes.json)",
        )
    kind = None
    for folder in parts[0::2]:
        kind = config.type_of(folder)
        if kind is None:
            raise UsageError(
                f"{path}: {folder!r} is not a collection of this exobrain",
                hint=f"collections here: {collections} (scopes.json)",
            )
    for name in parts[1::2]:
        if not _NAME.match(name) or len(name) > 64:
            raise UsageError(f"{path}: {name!r} must be lowercase letters, digits, '.', '_' or '-'")
    for ancestor in ancestor_paths(text):
        if scope_at(root, ancestor, config) is None:
            raise UsageError(
                f"{path}: its parent {ancestor} is not a scope yet",
                hint=f"exobrain scope new {ancestor} first",
            )
    if scope_at(root, text, config) is not None:
        raise UsageError(f"{text} is already a scope ({text}/{SCOPE_FLAG} exists)")
    assert kind is not None
    return kind


def local_ignored(root: Path) -> bool:
    """Whether git ignores ``local/``, this machine's own scope (scopes.md): else ``git add
    -A`` commits a person's private skills for everyone."""
    from exobrain.util.repository import Repository

    return Repository(root).ignores(f"{LOCAL}/")


def ignore_local(root: Path, *, dry_run: bool = False) -> str | None:
    """Make the root ``.gitignore`` ignore ``local/`` unless git already does: the rule is
    appended (the file's other bytes kept; made when missing). The file written, or None."""
    if local_ignored(root):
        return None
    path = root / GITIGNORE
    if not dry_run:
        text = read_text(path) if path.exists() or path.is_symlink() else ""
        ending = "" if not text or text.endswith("\n") else "\n"
        atomic_write_text(path, text + ending + LOCAL_RULE, root=root)
    return GITIGNORE


def new_scope(root: Path, config: ScopeConfig, path: str, *, dry_run: bool = False) -> NewScope:
    """Make the scope at ``path``: an empty ``skills.json`` (kept when one is there already)
    and ``AGENTS.md`` from the template, and make sure git ignores ``local/``
    (:func:`ignore_local`) from the first scope on."""
    kind = scope_type(root, config, path)
    text = check_scope_path(path)
    made = NewScope(text, kind)
    ignore = ignore_local(root, dry_run=dry_run)
    if ignore:
        made.files.append(ignore)
    registry = registry_path(root, text)
    flag = root / text / SCOPE_FLAG
    schema = Path(os.path.relpath(root / SCHEMA_FILE, registry.parent)).as_posix()
    if not registry.exists():
        made.files.append(shown(registry, root))
        if not dry_run:
            atomic_write_text(registry, dump_json({"$schema": schema, "skills": []}), root=root)
    made.files.append(shown(flag, root))
    if not dry_run:
        name = text.rsplit("/", 1)[-1]
        atomic_write_text(flag, AGENTS_TEMPLATE.format(name=name, kind=kind, path=text), root=root)
    return made


def missing_scope_note(path: str) -> str:
    """What to run when a scope a flag names does not exist."""
    return f"no scope {path} ({path}/{SCOPE_FLAG} missing; create it: exobrain scope new {path})"
