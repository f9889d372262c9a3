"""Who counts: a ledger folder ``signals/<id>/`` counts only when ``<id>`` is a person of the
repository.

A folder is not a person: anyone can commit fifty folders ``signals/fakeN/``, each with a vote
its own ledger lets it cast, and they would count as fifty voters. So a voter is a person the
repository knows — one with a person scope, ``people/<id>/`` with its ``AGENTS.md`` (any
collection of type ``person`` in ``scopes.json``, nested ones included, and in a sparse
checkout one git holds outside the cone) — or ``guest``, the one documented placeholder every
unconnected user shares. The ledgers of anyone else are *strangers*: read by no aggregate,
score, ranking, sweep or listing, and named by ``skills-validate`` and ``exobrain signals``.

Making the person's scope is what admits a voter, and it is a reviewed change like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import InputFileError
from exobrain.findings import ERROR, WARNING, Finding
from exobrain.signals.ledger import GUEST, LEDGER_LIMIT, SIGNALS_DIR, ledger_files
from exobrain.util.fileio import size_text
from exobrain.workspace import Workspace

PERSON = "person"


@dataclass(frozen=True)
class Ledgers:
    """The repository's ledgers split by whether their folder names a person."""

    counted: list[Path]  # what every reader reads (unlistable folders kept: reported there)
    strangers: dict[str, list[Path]] = field(default_factory=dict)  # signals/<id> → ledgers


def folder_person(root: Path, path: Path) -> str | None:
    """The ``<id>`` of ``signals/<id>/<host>.jsonl``; None for what is not a ledger inside a
    person's folder (``signals/`` itself, or a folder that could not be listed)."""
    parts = path.relative_to(root).parts
    return parts[1] if len(parts) == 3 and parts[0] == SIGNALS_DIR else None


def people_among(ws: Workspace, names: set[str]) -> set[str]:
    """The ``names`` that are persons of the repository (see the module's docstring).

    The top of each person collection is asked first, one ``stat`` (or, left out of a sparse
    checkout, one look at git's tree) per name; only a name found nowhere there makes the
    whole repository be walked, for person scopes nested deeper (under a group)."""
    found = {GUEST} & names
    tops = [folder for folder, kind in ws.config.collections if kind == PERSON]
    for name in sorted(names - found):
        for folder in tops:
            try:
                scope = ws.scope_at(f"{folder}/{name}")
            except InputFileError:  # a folder that cannot be searched: the walk names it
                scope = None
            if scope is not None and scope.type == PERSON:
                found.add(name)
                break
    rest = names - found
    if rest:
        found |= {s.name for s in ws.scan().scopes if s.type == PERSON} & rest
    return found


def repository_ledgers(ws: Workspace) -> Ledgers:
    """Every ledger of the repository, the strangers' set apart."""
    files = ledger_files(ws.root)
    owners = {path: folder_person(ws.root, path) for path in files}
    known = people_among(ws, {o for o in owners.values() if o is not None})
    counted: list[Path] = []
    strangers: dict[str, list[Path]] = {}
    for path in files:
        owner = owners[path]
        if owner is None or owner in known:
            counted.append(path)
        else:
            strangers.setdefault(f"{SIGNALS_DIR}/{owner}", []).append(path)
    return Ledgers(counted, strangers)


def stranger_note(ledgers: Ledgers) -> str | None:
    """One sentence saying which ledger folders were not counted and how to admit a person;
    None when every folder names one."""
    if not ledgers.strangers:
        return None
    names = sorted(ledgers.strangers)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"{len(names)} ledger folder(s) not counted, naming no person of the repository: "
        f"{shown} (a person counts once people/<id> exists: exobrain scope new people/<id>)"
    )


def ledger_findings(ws: Workspace) -> list[Finding]:
    """What ``skills-validate`` says about the ledgers: a folder naming no person (a warning:
    its lines are not counted) and a ledger over the cap (an error: every reader skips it,
    so all of that person's signals on that host are lost until it is compacted)."""
    ledgers = repository_ledgers(ws)
    found = [
        Finding(
            WARNING,
            "signals-stranger",
            folder,
            f"{len(paths)} ledger(s) of {folder.split('/', 1)[1]!r}, who is no person of the "
            f"repository: not counted; make the person's scope (exobrain scope new "
            f"people/{folder.split('/', 1)[1]}) or remove the folder",
        )
        for folder, paths in sorted(ledgers.strangers.items())
    ]
    for path in ledgers.counted:
        try:
            size = path.stat().st_size
        except OSError:
            continue  # (an unreadable ledger is reported by the readers)
        if size > LEDGER_LIMIT:
            rel = path.relative_to(ws.root).as_posix()
            person = folder_person(ws.root, path)
            found.append(
                Finding(
                    ERROR,
                    "signals-ledger-too-large",
                    rel,
                    f"{size:,} bytes ({size_text(size)}), over the {size_text(LEDGER_LIMIT)} "
                    f"cap for a ledger: every reader skips it, so none of its signals count; "
                    f"compact it (exobrain signals --compact --person {person}), which "
                    f"sheds calibration notes when they are what makes it too large",
                )
            )
    return found
