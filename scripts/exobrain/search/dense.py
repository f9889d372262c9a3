"""The ranking's arithmetic over whole numpy arrays, for pools of thousands of artifacts.

When an encoder votes, numpy is loaded anyway, and a pool of every skill of a big repository
(``--all-scopes``: 8,000 and more) makes the per-artifact Python loops of
:mod:`exobrain.search.ranking` the slowest part of a query. These functions compute the same
numbers — the fused z-scores, the hits, their relevance, the contenders for the top ``k`` —
as array operations; ``tests/search/test_dense.py`` holds them to the pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy

from exobrain.search.ranking import NO_SPREAD


def zscores(values: Any) -> Any:
    """``values`` standardised (float64); zeros when they have no spread."""
    values = numpy.asarray(values, dtype=numpy.float64)
    if not len(values):
        return values
    centred = values - values.mean()
    sd = math.sqrt(float(numpy.mean(centred * centred)))
    if not sd > NO_SPREAD * float(numpy.abs(values).max()):
        return numpy.zeros(len(values))
    return centred / sd


def fuse(signals: Mapping[str, Any], weights: Mapping[str, float]) -> Any:
    """:func:`exobrain.search.ranking.fuse` over arrays: the weighted mean of the standardised
    signals present."""
    used = {s: weights.get(s, 0.0) for s in signals if weights.get(s, 0.0) > 0}
    size = len(next(iter(signals.values()), []))
    fused = numpy.zeros(size)
    total = math.fsum(used.values())
    for name, weight in used.items():
        fused += weight / total * zscores(signals[name])
    return fused


def shortlist(fused: Any, matched: Any, factors: Any, k: int, quality_weight: float) -> Any:
    """(positions, relevance) of the hits that can still make the top ``k``, in pool order.

    The hits are the lexical matches (``matched``) and what means at least as much as the
    average (``fused >= 0``); relevance is ``exp(fused − best)``; a hit whose best possible
    score (quality 1) is below the k-th best worst-case score (quality 0) is left out, as
    :func:`exobrain.search.ranking.contenders` does."""
    positions = numpy.flatnonzero(matched | (fused >= 0))
    if not len(positions):
        return positions, numpy.zeros(0)
    chosen = fused[positions]
    relevance = numpy.exp(chosen - chosen.max())
    best_case = relevance * factors[positions]
    worst_case = best_case * (1.0 - quality_weight)
    if len(worst_case) >= k:
        threshold = float(numpy.partition(worst_case, len(worst_case) - k)[len(worst_case) - k])
    else:
        threshold = 0.0
    keep = best_case >= threshold
    return positions[keep], relevance[keep]
