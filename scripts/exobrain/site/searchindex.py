"""The search index the catalog ships as ``search-index.js`` (a global, so it loads
from ``file://`` where ``fetch()`` of a local JSON file is refused).

Ranking (computed in ``assets/search.js``, mirrored by ``rank`` here for tests):
SQLite FTS5's ``bm25()`` formula over one weighted document per skill — for each query
term, ``f`` is the sum over fields of ``boost × occurrences`` (``exobrain search``'s
weights: name 2.0, triggers 1.5, description, instructions, tags, personas 1.0), ``D`` the
document's token count over all fields, ``idf = ln((N − n + 0.5)/(n + 0.5))`` floored at 1e-6, and
``bm25 = Σ idf × f(k1+1)/(f + k1(1 − b + b·D/avgdl))``. Then, as ``exobrain search``:
``score = bm25/best × (1 − qw + qw × quality) × lifecycle``; ties by ``NAME@HOME``.
The stopwords are ``exobrain search``'s. What differs: a light stemmer that JavaScript can
mirror (not Porter), and no semantic half.

Encoding: ``t`` maps a stemmed term to a flat list ``[Δdoc, 2f, Δdoc, 2f, …]``: doc
numbers are delta-encoded and ``f`` is doubled so that boosts of 1.5 stay integers.
``d`` holds, per doc (in catalog row order): ref, page, home, lifecycle, quality
(null if unknown), 90-day uses, last change, tag ids, persona ids (ids into ``tags``
and ``personas``), so the catalog's filters and sorts need no DOM attributes.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

from exobrain.search.query import STOPWORDS
from exobrain.site.data import Catalog, Skill
from exobrain.site.text import stem, terms, tokenize

__all__ = ["GLOBAL_NAME", "build_index", "index_js", "query_words", "rank"]

GLOBAL_NAME = "EXO_SEARCH_INDEX"


def _doc_terms(s: Skill, boosts: dict[str, float], cap: int) -> tuple[Counter[str], int]:
    fields = {
        "name": terms(s.name),
        "triggers": terms(" ".join(s.triggers)),
        "description": terms(s.description),
        "instructions": terms(s.body)[:cap],
        "tags": terms(" ".join(s.tags)),
        "personas": terms(" ".join(s.personas)),
    }
    weighted: Counter[str] = Counter()
    length = 0
    for fname, toks in fields.items():
        length += len(toks)
        w2 = round(2 * float(boosts.get(fname, 1.0)))
        if not w2:
            continue
        for term, c in Counter(toks).items():
            weighted[term] += w2 * c
    return weighted, length


def build_index(cat: Catalog, pages: list[str]) -> dict[str, Any]:
    """The index as a JSON-able dict; ``pages[i]`` is skill i's path from the site root."""
    cfg = cat.search
    tag_ids: dict[str, int] = {}
    persona_ids: dict[str, int] = {}
    postings: dict[str, list[int]] = {}
    last_doc: dict[str, int] = {}
    lengths: list[int] = []
    docs: list[list[Any]] = []
    for i, s in enumerate(cat.skills):
        weighted, length = _doc_terms(s, cfg["boosts"], int(cfg["body_token_cap"]))
        lengths.append(length)
        for term, f2 in weighted.items():
            plist = postings.setdefault(term, [])
            plist.extend((i - last_doc.get(term, 0), f2))
            last_doc[term] = i
        docs.append(
            [
                s.ref,
                pages[i],
                s.home,
                s.lifecycle,
                None if s.quality is None else round(s.quality, 3),
                sum(s.usage),
                s.last_change,
                # dict.fromkeys, not set(): ids must not depend on PYTHONHASHSEED
                sorted(tag_ids.setdefault(t, len(tag_ids)) for t in dict.fromkeys(s.tags)),
                sorted(
                    persona_ids.setdefault(p, len(persona_ids)) for p in dict.fromkeys(s.personas)
                ),
            ]
        )
    n = len(cat.skills)
    return {
        "v": 1,
        "N": n,
        "avgdl": (sum(lengths) / n) if n else 0.0,
        "k1": cfg["k1"],
        "b": cfg["b"],
        "qw": cfg["quality_weight"],
        "qn": cfg["quality_neutral"],
        "lc": cfg["lifecycle"],
        "fl": cfg.get("floor", 0.0),
        "tags": list(tag_ids),
        "personas": list(persona_ids),
        "sw": sorted(STOPWORDS),
        "d": docs,
        "len": lengths,
        "t": dict(sorted(postings.items())),
    }


def index_js(index: dict[str, Any]) -> str:
    """The index as a script that assigns ``window.EXO_SEARCH_INDEX``."""
    body = json.dumps(index, separators=(",", ":"), ensure_ascii=False)
    return f"window.{GLOBAL_NAME}={body};\n"


def _decode(plist: list[int]) -> dict[int, float]:
    out: dict[int, float] = {}
    doc = 0
    for j in range(0, len(plist), 2):
        doc += plist[j]
        out[doc] = plist[j + 1] / 2
    return out


def query_words(query: str, prefix_last: bool = False) -> list[str]:
    """The query's words, stopwords dropped (unless nothing else is left), deduplicated.

    With ``prefix_last`` the last word is kept even when it is a stopword: the user may
    still be typing it.
    """

    words = tokenize(query)
    keep = [
        w
        for k, w in enumerate(words)
        if w not in STOPWORDS or (prefix_last and k == len(words) - 1)
    ]
    return list(dict.fromkeys(keep or words))


def rank(index: dict[str, Any], query: str, prefix_last: bool = False) -> list[tuple[str, float]]:
    """Reference implementation of the in-page ranking: ``[(ref, score)]``, best first.

    ``prefix_last`` makes the last query word also match every term it begins (what the
    page does while the user is still typing it).
    """

    words = query_words(query, prefix_last)
    if not words:
        return []
    n, avgdl = index["N"], index["avgdl"] or 1.0
    k1, b = index["k1"], index["b"]
    bm25: dict[int, float] = {}
    held: dict[int, float] = {}  # doc → the weight of the query's words it holds
    whole = 0.0
    for k, word in enumerate(words):
        keys = {stem(word)}
        if prefix_last and k == len(words) - 1 and len(word) >= 2:
            keys |= {t for t in index["t"] if t.startswith(word)}
        freq: dict[int, float] = {}
        for key in keys:
            for doc, f in _decode(index["t"].get(key, [])).items():
                freq[doc] = freq.get(doc, 0.0) + f
        weight = math.log((n - len(freq) + 0.5) / (len(freq) + 0.5) + 1)
        whole += weight
        if not freq:
            continue
        idf = max(math.log((n - len(freq) + 0.5) / (len(freq) + 0.5)), 1e-6)
        for doc, f in freq.items():
            held[doc] = held.get(doc, 0.0) + weight
            dl = index["len"][doc]
            bm25[doc] = bm25.get(doc, 0.0) + idf * f * (k1 + 1) / (
                f + k1 * (1 - b + b * dl / avgdl)
            )
    floor = index.get("fl", 0.0) * whole
    bm25 = {doc: v for doc, v in bm25.items() if held[doc] >= floor - 1e-9}
    if not bm25:
        return []
    best = max(bm25.values())
    scored = []
    for doc, raw in bm25.items():
        ref, _page, _home, lc, q = index["d"][doc][:5]
        quality = index["qn"] if q is None else q
        score = raw / best * (1 - index["qw"] + index["qw"] * quality) * index["lc"].get(lc, 1.0)
        scored.append((ref, score))
    scored.sort(key=lambda x: (-x[1], x[0]))
    return scored
