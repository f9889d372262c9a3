"""Executables in shared scopes: what the authoring gate asks a reviewer to read.

A file that runs on members' machines must be read by a person before it reaches them: the
scope hooks (``<scope>/scripts/connect-agent…``, which connect-agent runs after every pull on
each machine that trusts them) and every file git tracks as executable (mode ``100755``: the
scripts that skills give agents). The gate lists each one that is new, changed or newly
executable in a shared scope (global, seed, a group, a team) since the base. It does not fail
the check for them — nobody but a person can say a script was read — but it no longer says
"ok": the list is the reviewer's reading list, and on GitHub each file gets an annotation.

Pure: two git listings (path → mode and blob id) and the current scopes in, a list out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from exobrain.connect.scopehooks import HOOK_NAME
from exobrain.model import GLOBAL
from exobrain.scopes import is_shared

EXECUTABLE_MODE = "100755"
NEW, CHANGED, MADE_EXECUTABLE = "new", "changed", "made executable"


@dataclass(frozen=True)
class ChangedExecutable:
    """One executable a reviewer must read: where it is, its scope, what happened to it."""

    path: str
    scope: str
    change: str

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "scope": self.scope, "change": self.change}


def is_scope_hook(path: str, scopes: dict[str, str]) -> bool:
    """``<scope>/scripts/connect-agent`` or ``…/connect-agent.<agent>`` of a scope."""
    folder, _, name = path.rpartition("/")
    scope, _, scripts = folder.rpartition("/")
    return (
        scripts == "scripts"
        and (name == HOOK_NAME or name.startswith(f"{HOOK_NAME}."))
        and (scope or GLOBAL) in scopes
    )


def scope_of(path: str, scopes: dict[str, str]) -> str:
    """The deepest scope whose folder holds ``path``."""
    parts = path.split("/")
    for end in range(len(parts) - 1, 0, -1):
        prefix = "/".join(parts[:end])
        if prefix in scopes:
            return prefix
    return GLOBAL


def changed_executables(
    base: dict[str, tuple[str, str]], now: dict[str, tuple[str, str]], scopes: dict[str, str]
) -> list[ChangedExecutable]:
    """The executables of shared scopes in ``now`` that are new, changed or newly executable
    against ``base`` (both: path → (mode, blob id))."""

    def runs(path: str, mode: str) -> bool:
        return mode == EXECUTABLE_MODE or is_scope_hook(path, scopes)

    found: list[ChangedExecutable] = []
    for path, (mode, oid) in sorted(now.items()):
        if not runs(path, mode):
            continue
        scope = scope_of(path, scopes)
        if not is_shared(scopes[scope]):
            continue
        old = base.get(path)
        if old is None:
            change = NEW
        elif old[1] != oid:
            change = CHANGED
        elif not runs(path, old[0]):
            change = MADE_EXECUTABLE
        else:
            continue
        found.append(ChangedExecutable(path, scope, change))
    return found
