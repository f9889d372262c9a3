"""What runs on members' machines: the authoring gate's reading list.

A file that runs on members' machines must be read by a person before it reaches them, and
the gate lists, against the base:

* **executables of shared scopes** (global, seed, a group, a team) that are new, changed or
  newly executable: the scope hooks (``<scope>/scripts/connect-agent…``, which connect-agent
  runs after every pull on each machine that trusts them) and every file git tracks as
  executable (mode ``100755``: the scripts that skills give agents);
* **importable Python new at the repository root**: a package folder (``NAME/__init__.py``),
  a module (``NAME.py``, a compiled ``.pyc`` or extension), a ``.pth`` file. Anything Python
  starts in the repository with the current folder on its import path (``python -m``,
  ``python -c``, pre-commit's own hook) imports it instead of the installed package of that
  name -- a committed ``exobrain/`` would run as the toolkit. The toolkit's own processes
  keep the current folder and ``PYTHONPATH`` off the path (``-I``); this catches the rest.
  What was already there at the base is not listed again (a repository's own
  ``tests/__init__.py``);
* **crons.json commands** that are new or changed (by job name): each member who installs
  the crontab runs them unattended;
* **new voters** (:mod:`exobrain.gate.voters`): each person scope that makes someone a voter,
  whose votes then move every skill's score.

None of them fails the check as a finding -- nobody but a person can say a script was read --
but the gate no longer says "ok": it says "review needed", with its own exit code, and on
GitHub each item gets an annotation.

Pure: two git listings (path → mode and blob id), the current scopes and the jobs of both
states in, lists out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from exobrain.connect.scopehooks import HOOK_NAME
from exobrain.gate.crons import CronJob
from exobrain.gate.voters import NewVoter, new_voters
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


#: What Python imports from a folder on its path besides packages: modules (sources, compiled,
#: extensions) and the path files the site module reads.
IMPORTABLE_SUFFIXES = (".py", ".pyc", ".so", ".pyd", ".pth")
MODULE_SUFFIXES = IMPORTABLE_SUFFIXES[:4]  # what makes a folder a package as its __init__


@dataclass(frozen=True)
class RootPython:
    """A name Python can import from the repository's root that the base did not have."""

    path: str  # ``NAME/`` for a package, the file name otherwise
    kind: str  # "package", "module", "path file"

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "change": NEW}


def root_python(files: dict[str, tuple[str, str]]) -> dict[str, str]:
    """What Python could import from the root of a tree: shown path → kind."""
    found: dict[str, str] = {}
    for path in files:
        folder, _, name = path.partition("/")
        if not name and folder.endswith(IMPORTABLE_SUFFIXES):
            found[folder] = "path file" if folder.endswith(".pth") else "module"
        elif name.startswith("__init__.") and name.endswith(MODULE_SUFFIXES):
            found[f"{folder}/"] = "package"
    return found


def new_root_python(
    base: dict[str, tuple[str, str]], now: dict[str, tuple[str, str]]
) -> list[RootPython]:
    """Importable Python at the root of ``now`` that ``base`` did not have."""
    before = root_python(base)
    return [RootPython(p, kind) for p, kind in sorted(root_python(now).items()) if p not in before]


@dataclass(frozen=True)
class ChangedCommand:
    """A crons.json job whose command is new or differs from the base's job of that name."""

    job: str
    command: str
    change: str

    def as_json(self) -> dict[str, Any]:
        return {"job": self.job, "command": self.command, "change": self.change}


def changed_commands(base: tuple[CronJob, ...], now: tuple[CronJob, ...]) -> list[ChangedCommand]:
    """The jobs of ``now`` whose command a reviewer has not seen at the base."""
    before = {job.name: job.command for job in base}
    found: list[ChangedCommand] = []
    for job in now:
        old = before.get(job.name)
        if old != job.command:
            found.append(ChangedCommand(job.name, job.command, NEW if old is None else CHANGED))
    return found


@dataclass
class ReadingList:
    """Everything of the three kinds above, and the new voters
    (:mod:`exobrain.gate.voters`), for one review."""

    executables: list[ChangedExecutable]
    python: list[RootPython]
    commands: list[ChangedCommand]
    voters: list[NewVoter] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.executables or self.python or self.commands or self.voters)

    def as_json(self) -> dict[str, Any]:
        return {
            "executables_to_review": [e.as_json() for e in self.executables],
            "python_to_review": [p.as_json() for p in self.python],
            "cron_commands_to_review": [c.as_json() for c in self.commands],
            "voters_to_review": [v.as_json() for v in self.voters],
        }


def reading_list(
    base: dict[str, tuple[str, str]],
    now: dict[str, tuple[str, str]],
    scopes: tuple[dict[str, str], dict[str, str]],
    jobs: tuple[tuple[CronJob, ...], tuple[CronJob, ...]],
) -> ReadingList:
    """The reading list of ``now`` against ``base`` (the trees, the scopes and the crons.json
    jobs of base and now)."""
    return ReadingList(
        changed_executables(base, now, scopes[1]),
        new_root_python(base, now),
        changed_commands(*jobs),
        new_voters(scopes[0], scopes[1], base, now),
    )
