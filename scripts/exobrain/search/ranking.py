"""Ranking: relevance (BM25 and cosines, standardised and fused) × quality × lifecycle.

Pure functions over numbers; the weights come from the ``search`` section of the committed
weights file ``signals/weights.json`` (the copy packaged with the toolkit is used when a
repository has none). The formula, in words:

* **signals** — per visible artifact: ``lexical``, FTS5's BM25 with per-column boosts (name
  2.0, triggers 1.5, the rest 1.0) for the best ``lexical_limit`` matches and 0 for every
  other artifact; and one cosine per encoder that is installed and ready (``minilm``,
  ``wordllama``; see :mod:`exobrain.search.embedding`).
* **fused** — each signal standardised over the visible artifacts, ``z = (s − mean) / sd``
  (a signal without spread, such as no lexical match at all, gives 0 everywhere: it does not
  vote), then the weighted mean of the z-scores with the ``fusion`` weights of the signals
  present. Standardised sums keep score margins that rank fusion throws away, so an exact
  keyword match with a large BM25 lead survives a lukewarm cosine, and a missing encoder just
  drops its term: the remaining ratios are each pair's measured optimum.
* **hits** — the artifacts that match a word of the query, and (with an encoder) those whose
  fused value is at least the average's, 0: something unrelated is not listed just because
  ``-k`` asks for more hits than there are relevant artifacts.
* **relevance** — ``exp(fused − best fused)`` over the hits: 1 for the best, a fraction for the
  others, so the factors below scale it the same way whatever the size of the collection.
* **score** — ``relevance × (1 − quality_weight + quality_weight × quality) × lifecycle``,
  where ``quality`` is the skill's quality score in [0, 1] (``quality_neutral`` when none is
  known) and ``lifecycle`` the factor of its state (deprecated below active).

Ties are broken by reference, so the same query on the same data always lists the same order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from exobrain.errors import InputFileError
from exobrain.paths import packaged
from exobrain.search.embedding import ROLES
from exobrain.util.fileio import is_file, load_json

WEIGHTS_FILE = "signals/weights.json"
SECTION = "search"
PACKAGED = packaged("signal-weights.json")
COLUMNS = ("name", "triggers", "description", "instructions", "tags", "personas")
LIFECYCLES = ("draft", "active", "deprecated", "archived")
LEXICAL = "lexical"
SIGNALS = (LEXICAL, *ROLES)
Key = TypeVar("Key")


@dataclass(frozen=True)
class SearchWeights:
    """The ``search`` section of the weights file, checked."""

    boosts: tuple[float, ...]  # BM25 weight per column, in COLUMNS order
    lexical_limit: int  # FTS5 rows that count; the rest of the artifacts get 0
    fusion: dict[str, float]  # signal → weight (lexical and each encoder role)
    quality_weight: float
    quality_neutral: float
    lifecycle: dict[str, float]
    trigger_min_cosine: dict[str, float]  # discover: encoder role → "close in meaning"
    path: Path
    floor: Floor = field(default_factory=lambda: Floor())


@dataclass(frozen=True)
class Floor:
    """The relevance floor: what a hit must show, in absolute terms, to be listed at all.

    Scores are relative to the candidates (the best hit always has relevance 1), so they cannot
    tell a miss from a hit; the floor looks only at what does not depend on the other
    candidates:

    * the cosines of the query and the skill, one per encoder that voted;
    * ``coverage`` — the share of the query's content words, weighted by their inverse
      document frequency over the whole index, that the skill's name, triggers or description
      hold (a word no skill has weighs most, so "lasagne" is not covered by "make").

    With an encoder a hit passes when one cosine reaches ``cosine``, or their mean reaches
    ``mean_cosine``, or its coverage reaches ``coverage``; without one, when its coverage
    reaches ``lexical_coverage``. How the figures were chosen, and what they cost:
    knowledge/exobrain/search.md ("Nothing fits")."""

    cosine: float = 0.30
    mean_cosine: float = 0.26
    coverage: float = 0.3
    lexical_coverage: float = 0.1

    def passes(self, cosines: Mapping[str, float], coverage: float) -> bool:
        if not cosines:
            return coverage >= self.lexical_coverage
        mean = math.fsum(cosines.values()) / len(cosines)
        return (
            max(cosines.values()) >= self.cosine
            or mean >= self.mean_cosine
            or coverage >= self.coverage
        )

    def as_json(self) -> dict[str, float]:
        return {
            "cosine": self.cosine,
            "mean_cosine": self.mean_cosine,
            "coverage": self.coverage,
            "lexical_coverage": self.lexical_coverage,
        }


def load_search_weights(root: Path) -> SearchWeights:
    """The repository's ``signals/weights.json`` ``search`` section, else the packaged one."""
    path = root / WEIGHTS_FILE
    data = load_json(path) if is_file(path) else None
    if data is not None and not isinstance(data, dict):
        raise InputFileError(
            f"{path}: expected a JSON object", hint="see knowledge/exobrain/signals.md"
        )
    if not isinstance(data, dict) or SECTION not in data:
        path, data = PACKAGED, load_json(PACKAGED)
    return parse_search_weights(data.get(SECTION), path)


def parse_search_weights(block: Any, path: Path) -> SearchWeights:
    def bad(key: str, want: str) -> InputFileError:
        return InputFileError(
            f"{path}: {SECTION}.{key} must be {want}",
            hint="see knowledge/exobrain/search.md for every setting",
        )

    if not isinstance(block, dict):
        raise bad("", "an object")

    def section(key: str) -> dict[str, Any]:
        value = block.get(key)
        if not isinstance(value, dict):
            raise bad(key, "an object")
        return value

    def number(where: dict[str, Any], key: str, low: float = 0.0, high: float = math.inf) -> float:
        value = where.get(key.rsplit(".", 1)[-1])
        if (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not math.isfinite(value)
            or not low <= value <= high
        ):
            raise bad(key, f"a number from {low:g} to {high:g}")
        return float(value)

    boosts, fusion, quality = section("boosts"), section("fusion"), section("quality")
    lifecycle, discover = section("lifecycle"), section("discover")
    weights = {s: number(fusion, f"fusion.{s}") for s in SIGNALS}
    if weights[LEXICAL] <= 0:
        raise bad("fusion.lexical", "above 0 (without the semantic extra it is the ranking)")
    floor_block = block.get("floor", {})
    if not isinstance(floor_block, dict):
        raise bad("floor", "an object (cosine, mean_cosine, coverage, lexical_coverage)")
    floor = Floor(
        **{
            key: number(floor_block, f"floor.{key}", 0.0, 1.0)
            for key in ("cosine", "mean_cosine", "coverage", "lexical_coverage")
            if key in floor_block
        }
    )
    triggers = discover.get("trigger_min_cosine")
    if not isinstance(triggers, dict):
        raise bad("discover.trigger_min_cosine", "an object with a cosine per encoder")
    return SearchWeights(
        boosts=tuple(number(boosts, f"boosts.{c}") for c in COLUMNS),
        lexical_limit=int(number(block, "lexical_limit", 1.0, 100000.0)),
        fusion=weights,
        quality_weight=number(quality, "quality.weight", 0.0, 1.0),
        quality_neutral=number(quality, "quality.neutral", 0.0, 1.0),
        lifecycle={s: number(lifecycle, f"lifecycle.{s}", 0.0, 1.0) for s in LIFECYCLES},
        trigger_min_cosine={
            r: number(triggers, f"discover.trigger_min_cosine.{r}", -1.0, 1.0) for r in ROLES
        },
        path=path,
        floor=floor,
    )


@dataclass(frozen=True)
class Components:
    """Every number behind one hit's score (shown by ``search --json``)."""

    bm25: float | None  # raw BM25 (higher is better); None: not among the lexical matches
    cosines: dict[str, float] = field(default_factory=dict)  # encoder role → cosine
    coverage: float = 0.0  # the share of the query's words it holds (see Floor)
    fused: float = 0.0
    relevance: float = 0.0
    quality: float = 0.0
    lifecycle: float = 1.0
    score: float = 0.0

    def as_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {
            "bm25": r(self.bm25),
            "cosines": {role: r(c) for role, c in self.cosines.items()},
            "coverage": r(self.coverage),
            "fused": r(self.fused),
            "relevance": r(self.relevance),
            "quality": r(self.quality),
            "lifecycle": r(self.lifecycle),
            "score": r(self.score),
        }


#: A spread below this share of the signal's largest value is float noise, not information
#: (vectors are stored as float16): such a signal does not vote, instead of blowing rounding
#: differences up to whole z-units. Relative, because BM25 in a small collection is tiny.
NO_SPREAD = 1e-6


def zscores(values: Sequence[float]) -> list[float]:
    """``values`` standardised; all zeros when they have no spread (the signal does not vote)."""
    n = len(values)
    if n == 0:
        return []
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)
    if not sd > NO_SPREAD * max(abs(v) for v in values):
        return [0.0] * n
    return [(v - mean) / sd for v in values]


def fuse(signals: Mapping[str, Sequence[float]], weights: Mapping[str, float]) -> list[float]:
    """The weighted mean of the standardised ``signals`` (each a value per artifact, same
    order), over the signals present."""
    used = {s: weights.get(s, 0.0) for s in signals if weights.get(s, 0.0) > 0}
    total = math.fsum(used.values())
    if not used:
        return [0.0] * len(next(iter(signals.values()), []))
    fused: list[float] | None = None
    for name, weight in used.items():
        part = [weight / total * z for z in zscores(signals[name])]
        fused = part if fused is None else [a + b for a, b in zip(fused, part, strict=True)]
    assert fused is not None
    return fused


def relevance(fused: Sequence[float]) -> list[float]:
    """``exp(fused − best)``: in (0, 1], 1 for the best."""
    best = max(fused, default=0.0)
    return [math.exp(f - best) for f in fused]


def score(
    rel: float, quality: float | None, lifecycle: str, w: SearchWeights
) -> tuple[float, float, float]:
    """(score, quality used, lifecycle factor) of one hit."""
    q = w.quality_neutral if quality is None else min(1.0, max(0.0, quality))
    factor = w.lifecycle.get(lifecycle, w.lifecycle["active"])
    return rel * (1.0 - w.quality_weight + w.quality_weight * q) * factor, q, factor


def order(keys_scores: Mapping[str, float]) -> list[str]:
    """Best first; equal scores by key, so ties never depend on dictionary order."""
    return sorted(keys_scores, key=lambda k: (-round(keys_scores[k], 12), k))


def contenders(
    rel: Mapping[Key, float], lifecycles: Mapping[Key, str], k: int, w: SearchWeights
) -> list[Key]:
    """The hits that can still make the top ``k`` whatever their quality: one whose best
    possible score (quality 1) is below the k-th best worst-case score (quality 0) cannot, so
    its quality is never computed."""

    def factor(key: Key) -> float:
        return w.lifecycle.get(lifecycles[key], w.lifecycle["active"])

    floor = sorted(
        (r * (1 - w.quality_weight) * factor(key) for key, r in rel.items()), reverse=True
    )
    threshold = floor[k - 1] if len(floor) >= k else 0.0
    return [key for key, r in rel.items() if r * factor(key) >= threshold]
