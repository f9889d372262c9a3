"""Which optional skills the index shows when not all fit the agent's budget: a score per row
from the skill's quality, its usage and its relevance to this connection.

* **quality** — the skill's quality score in [0, 1] from the signal ledgers
  (:mod:`exobrain.signals.quality`: votes, ranks, calibration, usage, funding; an unrated skill
  gets the same no-signal baseline as every other, so no signals means no preference);
* **usage** — its usage component alone (decayed uses, saturating), counted once more so a
  skill the people here actually use comes before an equally rated one they do not;
* **relevance** — how close its home is to this connection: a skill of the deepest connected
  scope 1, of global ``1 / len(chain)``, one of a scope outside the chain (opted into) or an
  external one 0. (A persona's skills are not in the index: ``--persona`` links them.)

The score is the mean of the three, in [0, 1]. Only :func:`index_scores` reads anything (the
ledgers, through the aggregate cache), and :mod:`exobrain.connect.budgets` asks for it only
when some rows must be left out, so a small index never reads the ledgers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from exobrain.connect.indexes import IndexRow
from exobrain.errors import InputFileError
from exobrain.workspace import Workspace

#: The weight of each part in the score (their mean).
WEIGHTS = {"quality": 1.0, "usage": 1.0, "relevance": 1.0}


def closeness(home: str, chain: list[str]) -> float:
    """1 for the deepest scope of ``chain`` (shallow to deep), less for shallower ones, 0 for a
    home outside it (an external skill, a scope opted into from elsewhere)."""
    if home not in chain:
        return 0.0
    return (chain.index(home) + 1) / len(chain)


def combined(quality: float, usage: float, relevance: float) -> float:
    """The weighted mean of the three parts."""
    parts = {"quality": quality, "usage": usage, "relevance": relevance}
    return sum(WEIGHTS[k] * v for k, v in parts.items()) / sum(WEIGHTS.values())


def signal_parts(ws: Workspace, refs: list[str]) -> dict[str, tuple[float, float]]:
    """(quality score, usage component) of each ref from the ledgers; empty when they cannot
    be read (the index is still written, closest first)."""
    from exobrain.signals.aggregate import aggregate
    from exobrain.signals.quality import load_weights, quality_all

    if not refs:
        return {}
    try:
        results = quality_all(aggregate(ws), refs, load_weights(ws.root), time.time())
    except (InputFileError, OSError):
        return {}
    return {q.skill: (q.score, q.components.get("usage", 0.0)) for q in results}


def index_scores(ws: Workspace, rows: list[IndexRow]) -> Mapping[str, float]:
    """The score of each row, by its path (see the module docstring)."""
    chain = list(ws.chain.paths)
    parts = signal_parts(ws, sorted({row.ref for row in rows if row.ref}))
    scores = {}
    for row in rows:
        quality, usage = parts.get(row.ref, (0.0, 0.0))
        scores[row.path] = combined(quality, usage, closeness(row.home, chain))
    return scores
