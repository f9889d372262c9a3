"""New voters: the persons a change admits, shown to a reviewer before their votes can count.

A ledger counts only when its folder names a person of the repository
(:mod:`exobrain.signals.voters`): a person scope (``people/<id>/`` with its ``AGENTS.md``,
nested ones included) is what makes ``<id>`` a voter. A scope of one file costs nothing to
commit, so fifty ``people/fakeN/AGENTS.md`` with a ledger each would be fifty votes. The gate
therefore lists every person a change makes a voter -- a person scope new at the current state
whose name was no person at the base, also one a ``scopes.json`` edit turned into a person --
with the ledgers the change brings for them, as "review needed" (exit 3): a vote moves a score
only once a reviewer has seen who added its voter. Splitting the scope and the ledgers over two
changes does not help: the scope is listed in the first.

Pure: the scopes (path → type) and the file listings of both states in, the list out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from exobrain.signals.ledger import GUEST, SIGNALS_DIR
from exobrain.signals.voters import PERSON


@dataclass(frozen=True)
class NewVoter:
    """A person the change makes a voter: the scope that does it, and the ledgers of theirs
    the change adds."""

    person: str
    scope: str
    ledgers: int

    def as_json(self) -> dict[str, Any]:
        return {"person": self.person, "scope": self.scope, "ledgers_added": self.ledgers}


def persons(scopes: dict[str, str]) -> dict[str, str]:
    """Voter name → the first person scope (by path) that makes it one."""
    found: dict[str, str] = {}
    for path, kind in sorted(scopes.items()):
        if kind == PERSON:
            found.setdefault(path.rpartition("/")[2], path)
    return found


def new_voters(
    base_scopes: dict[str, str],
    now_scopes: dict[str, str],
    base_files: dict[str, Any],
    now_files: dict[str, Any],
) -> list[NewVoter]:
    """Every person of ``now_scopes`` that was none at the base (``guest``, the shared
    placeholder, needs no scope and is never listed), sorted by name."""
    before = persons(base_scopes)
    added: dict[str, int] = {}
    for path in now_files:
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == SIGNALS_DIR and path not in base_files:
            added[parts[1]] = added.get(parts[1], 0) + 1
    return [
        NewVoter(name, scope, added.get(name, 0))
        for name, scope in sorted(persons(now_scopes).items())
        if name not in before and name != GUEST
    ]
