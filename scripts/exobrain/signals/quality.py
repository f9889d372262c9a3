"""The quality score: one number in [0, 1] per skill, from its aggregated signals.

Every signal weighs ``0.5 ** (age / half_life)``: a vote, a rank or a day of usage loses half
its weight every half-life, so stale skills cannot live on old praise. With those decayed
weights, five components, each in [0, 1]:

* votes — the Wilson lower bound of the share of up-votes (0 with no votes): many up-votes
  beat one, and a single voter cannot make a skill perfect;
* ranks — per dimension (clarity, accuracy, scope, novelty) a Bayesian mean pulled towards a
  prior, then the average of the four;
* calibration — the completion rate as a Bayesian mean with a prior;
* usage — decayed uses ``u`` saturating as ``u / (u + half_saturation)``;
* fund — decayed amount ``f`` in the scored currency, ``log(1 + f) / log(1 + saturation)``
  capped at 1.

The score is the weighted mean of the components with fixed weights, so adding an up-vote,
a use or funding never lowers it. Every constant lives in ``signals/weights.json`` (read at
run time; the copy shipped with the package is used when the repository has none). The
formula is written out in ``knowledge/exobrain/signals.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import mul
from pathlib import Path
from typing import Any, TypeGuard

from exobrain.errors import InputFileError
from exobrain.paths import packaged
from exobrain.signals.aggregate import RANK_SCALE, RANK_STEP, Aggregate
from exobrain.signals.ledger import DIMENSIONS, FUND_UNIT, SIGNALS_DIR
from exobrain.util.fileio import is_file, load_json

WEIGHTS_FILE = "weights.json"
COMPONENTS = ("votes", "ranks", "calibration", "usage", "fund")
DAY = 86400.0
_SHAPE: dict[str, dict[str, str]] = {
    "votes": {"wilson_z": "positive"},
    "ranks": {"prior_mean": "unit", "prior_weight": "positive"},
    "calibration": {"prior_mean": "unit", "prior_weight": "positive"},
    "usage": {"half_saturation": "positive"},
    "fund": {"currency": "text", "saturation": "positive"},
    "sweep": {
        "quality_below": "unit",
        "usage_below": "count",
        "window_days": "positive",
        "sample_days": "positive",
    },
    "compact": {"older_than_days": "count"},
}


@dataclass(frozen=True)
class Weights:
    """The parsed ``signals/weights.json`` (``path`` says which file it came from)."""

    half_life_days: float
    weights: dict[str, float]
    settings: dict[str, dict[str, Any]]
    path: Path

    def __getitem__(self, key: str) -> dict[str, Any]:
        return self.settings[key]


def weights_path(root: Path) -> Path:
    local = root / SIGNALS_DIR / WEIGHTS_FILE
    return local if is_file(local) else packaged("signal-weights.json")


def load_weights(root: Path) -> Weights:
    """Read and check the weights file; a bad value names the key and what it should be."""
    path = weights_path(root)
    data = load_json(path)

    def bad(key: str, want: str) -> InputFileError:
        return InputFileError(
            f"{path}: {key} must be {want}",
            hint="see knowledge/exobrain/signals.md for every setting",
        )

    if not isinstance(data, dict):
        raise bad("the file", "a JSON object")
    half_life = data.get("half_life_days")
    if not _is_number(half_life) or half_life <= 0:
        raise bad("half_life_days", "a number of days greater than 0")
    weights = data.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(COMPONENTS):
        raise bad("weights", f"an object with exactly {', '.join(COMPONENTS)}")
    if not all(_is_number(v) and v >= 0 for v in weights.values()) or not sum(weights.values()):
        raise bad("weights", "numbers >= 0, not all 0")
    settings: dict[str, dict[str, Any]] = {}
    for section, keys in _SHAPE.items():
        block = data.get(section)
        if not isinstance(block, dict):
            raise bad(section, f"an object with {', '.join(keys)}")
        for key, kind in keys.items():
            value = block.get(key)
            ok = {
                "positive": _is_number(value) and value > 0,
                "unit": _is_number(value) and 0 <= value <= 1,
                "count": _is_number(value) and value >= 0,
                "text": isinstance(value, str) and bool(value),
            }[kind]
            if not ok:
                want = {
                    "positive": "a number greater than 0",
                    "unit": "a number from 0 to 1",
                    "count": "a number >= 0",
                    "text": "a non-empty string",
                }[kind]
                raise bad(f"{section}.{key}", want)
        settings[section] = dict(block)
    return Weights(float(half_life), {k: float(v) for k, v in weights.items()}, settings, path)


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def wilson_lower(positive: float, total: float, z: float) -> float:
    """Lower bound of the Wilson score interval; works with fractional (decayed) counts."""
    if total <= 0:
        return 0.0
    share = positive / total
    z2 = z * z
    centre = share + z2 / (2 * total)
    spread = z * math.sqrt(max(share * (1 - share) / total + z2 / (4 * total * total), 0.0))
    return max(0.0, (centre - spread) / (1 + z2 / total))


class Decay(dict[int, float]):
    """``0.5 ** (age / half_life)`` at a fixed ``now``; as a mapping, the factor of each day
    bucket (dated at noon UTC), computed on first use. Anything dated after ``now`` weighs 1."""

    def __init__(self, now: float, half_life_days: float) -> None:
        super().__init__()
        self.now = now
        self.rate = math.log(2) / (half_life_days * DAY)

    def at(self, seconds: float) -> float:
        return math.exp(-self.rate * (self.now - seconds)) if seconds < self.now else 1.0

    def __missing__(self, day: int) -> float:
        factor = self[day] = self.at(day * DAY + DAY / 2)
        return factor


@dataclass
class Quality:
    """A skill's score, its components and the numbers behind them."""

    skill: str
    score: float
    components: dict[str, float]
    evidence: dict[str, Any]

    def as_json(self, evidence: bool = True) -> dict[str, Any]:
        data = {
            "skill": self.skill,
            "score": round(self.score, 6),
            "components": {k: round(v, 6) for k, v in self.components.items()},
        }
        return {**data, "evidence": self.evidence} if evidence else data


def quality(
    agg: Aggregate, skill: str, weights: Weights, now: float, decay: Decay | None = None
) -> Quality:
    """Score one skill at time ``now`` (epoch seconds)."""
    decay = Decay(now, weights.half_life_days) if decay is None else decay
    # math.fsum everywhere: exactly rounded, so the score does not depend on line order
    # (compaction reorders lines and must not move a score by even one ulp).
    fsum, at = math.fsum, decay.at
    ups: list[float] = []
    downs: list[float] = []
    for code in agg.votes.get(skill, {}).values():  # see vote_code
        (ups if code & 1 else downs).append(at((code >> 1) / 1000))
    up_w, down_w = fsum(ups), fsum(downs)
    votes = wilson_lower(up_w, up_w + down_w, weights["votes"]["wilson_z"])

    prior, strength = weights["ranks"]["prior_mean"], weights["ranks"]["prior_weight"]
    dims: dict[str, dict[str, float]] = {}
    ranked = agg.ranks.get(skill, {})
    for dim in DIMENSIONS:
        codes = ranked.get(dim, {}).values()  # see rank_code
        factors = [at(code // RANK_SCALE / 1000) for code in codes]
        values = [code % RANK_SCALE / RANK_STEP for code in codes]
        dims[dim] = {
            "raters": len(factors),
            "score": (strength * prior + fsum(map(mul, factors, values)))
            / (strength + fsum(factors)),
        }
    ranks = fsum(d["score"] for d in dims.values()) / len(DIMENSIONS)

    outcomes = agg.calibration.get(skill, {})
    done = sum(c for c, _n in outcomes.values())
    total = sum(n for _c, n in outcomes.values())
    done_w = fsum(c * decay[day] for day, (c, _n) in outcomes.items())
    total_w = fsum(n * decay[day] for day, (_c, n) in outcomes.items())
    prior, strength = weights["calibration"]["prior_mean"], weights["calibration"]["prior_weight"]
    calibration = (strength * prior + done_w) / (strength + total_w)

    used = agg.usage.get(skill, {})
    uses = sum(used.values())
    uses_w = fsum(map(mul, used.values(), map(decay.__getitem__, used)))
    usage = uses_w / (uses_w + weights["usage"]["half_saturation"])

    currency = weights["fund"]["currency"]
    funded: dict[str, int] = {}
    for (cur, _day), amount in agg.fund.get(skill, {}).items():
        funded[cur] = funded.get(cur, 0) + amount
    fund_w = fsum(
        amount / FUND_UNIT * decay[day]
        for (cur, day), amount in agg.fund.get(skill, {}).items()
        if cur == currency
    )
    fund = min(1.0, math.log1p(fund_w) / math.log1p(weights["fund"]["saturation"]))

    components = {
        "votes": votes,
        "ranks": ranks,
        "calibration": calibration,
        "usage": usage,
        "fund": fund,
    }
    score = math.fsum(weights.weights[k] * v for k, v in components.items()) / math.fsum(
        weights.weights.values()
    )
    evidence = {
        "votes": {
            "up": len(ups),
            "down": len(downs),
            "up_weight": round(up_w, 4),
            "down_weight": round(down_w, 4),
        },
        "ranks": {
            d: {"raters": v["raters"], "score": round(v["score"], 4)} for d, v in dims.items()
        },
        "calibration": {
            "completed": done,
            "outcomes": total,
            "rate": round(done / total, 4) if total else None,
        },
        "usage": {"uses": uses, "decayed": round(uses_w, 4)},
        "fund": {
            "totals": {c: a / FUND_UNIT for c, a in sorted(funded.items())},
            "scored_currency": currency,
            "decayed": round(fund_w, 4),
        },
    }
    return Quality(skill, min(1.0, max(0.0, score)), components, evidence)


def quality_all(agg: Aggregate, skills: list[str], weights: Weights, now: float) -> list[Quality]:
    """Score many skills at one ``now`` (sharing the per-day decay factors)."""
    decay = Decay(now, weights.half_life_days)
    return [quality(agg, skill, weights, now, decay) for skill in skills]
