"""Shared pieces for the signal tests: an exobrain with a few skills, ledger lines at chosen
times."""

from __future__ import annotations

import time
from pathlib import Path

from exobrain.signals.aggregate import Aggregate, aggregate_files
from exobrain.signals.ledger import dump_line, ledger_files, ledger_path, make_signal
from tests.support.helpers import exobrain

DAY = 86400.0
NOW = time.time()
TIDY, LINT = "skill:tidy@global", "skill:lint@groups/acme"


def repo(tmp_path: Path, person: str = "al", **extra) -> Path:
    """global: tidy, old; groups/acme: lint; people/al connected as al."""
    return exobrain(
        tmp_path / "exo",
        scopes=["groups/acme", "people/al"],
        registries={
            "global": [
                {"name": "tidy", "owner": "al", "tier": "always"},
                {"name": "old", "owner": "al", "tier": "optional"},
            ],
            "groups/acme": [{"name": "lint", "owner": "bo", "tier": "optional"}],
        },
        skills={"global/tidy": None, "global/old": None, "groups/acme/lint": None},
        connection={"connected_scopes": ["groups/acme", "people/al"], "person": person},
        **extra,
    )


def sig(
    kind: str, skill: str, value, days_ago: float = 0.0, by: str = "al", host: str = "h", **extra
) -> dict:
    return make_signal(kind, skill, value, by=by, host=host, at=NOW - days_ago * DAY, **extra)


def write(
    root: Path, lines: list[dict], person: str | None = None, host: str = "h", append: bool = False
) -> Path:
    """Write ``lines`` into their authors' ledgers (a line counts only in the ledger of its
    ``by``), or all into ``person``'s; the path of the first ledger written."""
    by_path: dict[Path, list[dict]] = {}
    for line in lines:
        by_path.setdefault(ledger_path(root, person or line["by"], host), []).append(line)
    if not by_path:
        by_path[ledger_path(root, person or "al", host)] = []
    for path, chosen in by_path.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write("".join(dump_line(line) for line in chosen))
    return next(iter(by_path))


def every_ledger(root: Path) -> Aggregate:
    """The aggregate of every ledger under ``root``, whoever's folder holds it: the rules of
    aggregation apart from who counts as a voter (tests/security/test_signals_voters.py)."""
    return aggregate_files(root, ledger_files(root))
