"""Ranking: relevance (BM25 and cosine, fused) × quality × lifecycle, every weight in a file.

Pure functions over numbers; the weights come from the ``search`` section of the committed
weights file ``signals/weights.json`` (the copy packaged with the toolkit is used when a
repository has none). The formula, in words:

* **lexical** — FTS5's BM25 with per-column boosts (name 2.0, triggers 1.5, the rest 1.0),
  divided by the best BM25 among the visible hits, so it lies in [0, 1];
* **semantic** — the cosine between the query's and the skill's embeddings, rescaled over the
  candidates as ``(cos - floor) / (best - floor)`` with ``floor`` the semantic ``floor`` weight
  (cosines of unrelated texts sit well above 0 with static embeddings);
* **relevance** — ``fusion: "weighted"``: ``lexical_weight × lexical + semantic_weight ×
  semantic`` divided by the sum of the weights in use; ``fusion: "rrf"``: reciprocal rank
  fusion ``Σ weight / (rrf_k + rank)`` scaled so that first in both lists is 1;
* **score** — ``relevance × (1 - quality_weight + quality_weight × quality) × lifecycle``,
  where ``quality`` is the skill's quality score in [0, 1] (``quality_neutral`` when none is
  known) and ``lifecycle`` the factor of its state (deprecated below active).

Ties are broken by reference, so the same query on the same data always lists the same order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.paths import packaged
from exobrain.util.fileio import load_json

WEIGHTS_FILE = "signals/weights.json"
SECTION = "search"
PACKAGED = packaged("signal-weights.json")
COLUMNS = ("name", "triggers", "description", "instructions", "tags", "personas")
LIFECYCLES = ("draft", "active", "deprecated", "archived")


@dataclass(frozen=True)
class SearchWeights:
    """The ``search`` section of the weights file, checked."""

    boosts: tuple[float, ...]  # BM25 weight per column, in COLUMNS order
    fusion: str  # "weighted" | "rrf"
    lexical_weight: float
    semantic_weight: float
    semantic_floor: float
    rrf_k: float
    candidates: int  # semantic shortlist size (Hamming first cut)
    quality_weight: float
    quality_neutral: float
    lifecycle: dict[str, float]
    trigger_min_cosine: float  # discover: a trigger "matches" at this cosine
    path: Path


def load_search_weights(root: Path) -> SearchWeights:
    """The repository's ``signals/weights.json`` ``search`` section, else the packaged one."""
    path = root / WEIGHTS_FILE
    data = load_json(path) if path.is_file() else None
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

    def number(key: str, low: float = 0.0, high: float = math.inf, where: Any = None) -> float:
        value = (block if where is None else where).get(key.rsplit(".", 1)[-1])
        if (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not math.isfinite(value)
            or not low <= value <= high
        ):
            raise bad(key, f"a number from {low:g} to {high:g}")
        return float(value)

    def section(key: str) -> dict:
        value = block.get(key)
        if not isinstance(value, dict):
            raise bad(key, "an object")
        return value

    boosts = section("boosts")
    fusion = section("fusion")
    method = fusion.get("method")
    if method not in ("weighted", "rrf"):
        raise bad("fusion.method", '"weighted" or "rrf"')
    lexical_w = number("fusion.lexical", where=fusion)
    semantic_w = number("fusion.semantic", where=fusion)
    if lexical_w + semantic_w <= 0:
        raise bad("fusion", "lexical and semantic weights that are not both 0")
    semantic = section("semantic")
    quality = section("quality")
    lifecycle = section("lifecycle")
    discover = section("discover")
    return SearchWeights(
        boosts=tuple(number(f"boosts.{c}", where=boosts) for c in COLUMNS),
        fusion=method,
        lexical_weight=lexical_w,
        semantic_weight=semantic_w,
        semantic_floor=number("semantic.floor", -1.0, 0.99, where=semantic),
        rrf_k=number("fusion.rrf_k", 1.0, where=fusion),
        candidates=int(number("semantic.candidates", 1.0, where=semantic)),
        quality_weight=number("quality.weight", 0.0, 1.0, where=quality),
        quality_neutral=number("quality.neutral", 0.0, 1.0, where=quality),
        lifecycle={s: number(f"lifecycle.{s}", 0.0, 1.0, where=lifecycle) for s in LIFECYCLES},
        trigger_min_cosine=number("discover.trigger_min_cosine", -1.0, 1.0, where=discover),
        path=path,
    )


@dataclass(frozen=True)
class Components:
    """Every number behind one hit's score (shown by ``search --json``)."""

    bm25: float | None  # raw BM25 (higher is better), None: no lexical match
    lexical: float  # normalised to [0, 1]
    cosine: float | None  # None: semantic half off or not shortlisted
    semantic: float  # rescaled to [0, 1]
    relevance: float
    quality: float
    lifecycle: float
    score: float

    def as_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {
            "bm25": r(self.bm25),
            "lexical": r(self.lexical),
            "cosine": r(self.cosine),
            "semantic": r(self.semantic),
            "relevance": r(self.relevance),
            "quality": r(self.quality),
            "lifecycle": r(self.lifecycle),
            "score": r(self.score),
        }


def relevance(
    lexical: Mapping[str, float], cosine: Mapping[str, float], w: SearchWeights
) -> dict[str, tuple[float, float, float]]:
    """key → (lexical in [0, 1], semantic in [0, 1], fused relevance) for every key in either
    mapping. ``cosine`` empty means the semantic half is off: relevance is lexical alone."""
    best_bm25 = max(lexical.values(), default=0.0)
    best_cos = max(cosine.values(), default=0.0)
    floor = min(w.semantic_floor, best_cos - 1e-9)
    lex = {k: (v / best_bm25 if best_bm25 > 0 else 0.0) for k, v in lexical.items()}
    sem = {k: max(0.0, (v - floor) / (best_cos - floor)) for k, v in cosine.items()}
    use_sem = bool(cosine) and w.semantic_weight > 0
    use_lex = w.lexical_weight > 0 or not use_sem
    lw = (w.lexical_weight or 1.0) if use_lex else 0.0
    sw = w.semantic_weight if use_sem else 0.0
    keys = set(lex) | set(sem)
    if w.fusion == "rrf":
        lex_rank = _ranks(lexical)
        sem_rank = _ranks(cosine)
        top = lw / (w.rrf_k + 1) + sw / (w.rrf_k + 1)

        def fuse(key: str) -> float:
            total = 0.0
            if key in lex_rank:
                total += lw / (w.rrf_k + lex_rank[key])
            if key in sem_rank:
                total += sw / (w.rrf_k + sem_rank[key])
            return total / top
    else:

        def fuse(key: str) -> float:
            return (lw * lex.get(key, 0.0) + sw * sem.get(key, 0.0)) / (lw + sw)

    return {k: (lex.get(k, 0.0), sem.get(k, 0.0), fuse(k)) for k in keys}


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda k: (-scores[k], k))
    return {key: position for position, key in enumerate(ordered, 1)}


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
