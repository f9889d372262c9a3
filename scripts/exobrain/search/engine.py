"""Search: the right artifacts for a text, from what this connection can see.

The shell around the pure pieces: :mod:`exobrain.search.corpus` says what is visible,
:mod:`exobrain.search.index` keeps the FTS5 index and vectors fresh (only changed artifacts
are re-read), :mod:`exobrain.search.embedding` turns the query into a vector without loading the
model, and :mod:`exobrain.search.ranking` fuses and orders. Every query first brings the visible
artifacts' rows up to date, so an edit shows in the next search.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from exobrain.catalog import unreadable_skill
from exobrain.errors import OperationFailed, UsageError
from exobrain.model import Reason
from exobrain.search import embedding
from exobrain.search.corpus import Artifact, View, index_artifacts, open_view
from exobrain.search.index import Index, Update, discard, index_path, is_corrupt, open_index
from exobrain.search.ranking import (
    Components,
    SearchWeights,
    load_search_weights,
    order,
    relevance,
    score,
)
from exobrain.skillmd import as_list, one_line
from exobrain.workspace import Workspace

LEXICAL_NOTE = (
    f"semantic search is off (the [semantic] extra is not installed: "
    f"{embedding.INSTALL_HINT}); results are lexical"
)
#: Words that carry no meaning for BM25 (they would only add noise to an OR query).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_WORD = re.compile(r"\w+", re.UNICODE)
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


@dataclass(frozen=True)
class Hit:
    artifact: Artifact
    description: str
    meta: dict[str, Any]
    components: Components

    @property
    def score(self) -> float:
        return self.components.score


@dataclass
class Result:
    hits: list[Hit]
    mode: str  # "hybrid" | "lexical"
    notes: list[str] = field(default_factory=list)
    update: Update = field(default_factory=Update)
    considered: int = 0


def fts_query(text: str) -> str:
    """An FTS5 expression for any user text: its words, each quoted (so no character of the
    input is FTS5 syntax), joined with OR; stopwords dropped unless nothing else is left."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        raise UsageError(
            "the query has no words to search for",
            hint='e.g. exobrain search "dock a ligand into a pocket"',
        )
    content = [w for w in words if w not in STOPWORDS] or words
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(content))


class Searcher:
    """An open index for one workspace: refresh, then answer queries (and discover)."""

    def __init__(
        self, ws: Workspace, *, semantic: bool = True, weights: SearchWeights | None = None
    ) -> None:
        self.ws = ws
        self.weights = weights or load_search_weights(ws.root)
        self.model = embedding.find_model() if semantic else None
        self.notes: list[str] = []
        self.update = Update()
        self._fresh: set[str] = set()  # refs refreshed by this searcher already
        self._reported: set[str] = set()  # unreadable files already in the workspace findings
        self.index = self._open()
        self._encoder: embedding.QueryEncoder | None = None

    def _open(self) -> Index:
        index, reason = open_index(index_path(self.ws.root), root=self.ws.root)
        if reason:
            self.notes.append(f"search index: {reason}")
        if self.model is not None and index.meta("model") != self.model.model_id:
            with index.transaction():
                embedding.store_tokenizer(index.db, self.model)
                index.db.execute("DELETE FROM vectors")
                index.set_meta("model", self.model.model_id)
        return index

    @property
    def mode(self) -> str:
        return "hybrid" if self.model is not None else "lexical"

    def refresh(
        self, artifacts: list[Artifact], *, prune: bool = False, embed: bool = True
    ) -> Update:
        """Refresh the rows of ``artifacts`` (and their vectors, when ``embed`` and the model
        is installed); what was done accumulates in :attr:`update`."""
        embedder = embedding.embed_documents if self.model is not None and embed else None
        fresh = artifacts if prune else [a for a in artifacts if a.ref not in self._fresh]
        self._fresh.update(a.ref for a in fresh)
        update = self.index.refresh(fresh, prune=prune, embedder=None, update=self.update)
        self._report_problems(fresh, update)
        if embedder is not None:  # vectors for every artifact asked about, fresh or not
            update.embedded += self.index.embed_missing(embedder, [a.ref for a in artifacts])
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
        view = open_view(self.ws, everywhere=everywhere)
        self.refresh(view.declared(), embed=False)
        known = self.index.supersedes()
        view.supersedes = lambda entry: known.get(f"skill:{entry.name}@{entry.scope}")
        return view

    def encoder(self) -> embedding.QueryEncoder:
        if self._encoder is None:
            assert self.model is not None
            self._encoder = embedding.QueryEncoder(self.index.db, self.model)
        return self._encoder

    def rank(
        self, query: str, artifacts: list[Artifact], *, k: int, quality: QualityFn | None = None
    ) -> list[Hit]:
        """The top ``k`` of ``artifacts`` for ``query`` (rows must be fresh)."""
        w = self.weights
        ids = self.index.ids(a.ref for a in artifacts)
        by_id = {ids[a.ref]: a for a in artifacts if a.ref in ids}
        lexical = {
            by_id[i].ref: s
            for i, s in self.index.lexical(fts_query(query), w.boosts).items()
            if i in by_id
        }
        cosine = self._cosines(query, by_id) if self.model is not None else {}
        artifact_of = {a.ref: a for a in by_id.values()}
        fused = {ref: v for ref, v in relevance(lexical, cosine, w).items() if v[2] > 0}
        contenders = _contenders(fused, {r: artifact_of[r].lifecycle for r in fused}, k, w)
        known = quality(sorted(contenders)) if quality else {}
        final: dict[str, tuple[float, Components]] = {}
        for ref in contenders:
            lex, sem, rel = fused[ref]
            total, q, factor = score(rel, known.get(ref), artifact_of[ref].lifecycle, w)
            final[ref] = (
                total,
                Components(lexical.get(ref), lex, cosine.get(ref), sem, rel, q, factor, total),
            )
        hits = []
        best = order({r: v[0] for r, v in final.items()})[:k]
        rows = self.index.rows(best)
        for ref in best:
            row = rows[ref]
            hits.append(Hit(artifact_of[ref], row.description, row.meta, final[ref][1]))
        return hits

    def _cosines(self, query: str, by_id: dict[int, Artifact]) -> dict[str, float]:
        vector = self.encoder().encode(query)
        if vector is None:
            return {}
        mine = embedding.signature(vector)
        signatures = self.index.signatures(list(by_id))
        # first cut by Hamming distance of the sign bits, then exact cosines on the shortlist
        distance = {i: (mine ^ int.from_bytes(s, "big")).bit_count() for i, s in signatures.items()}
        shortlist = sorted(distance, key=lambda i: (distance[i], i))[: self.weights.candidates]
        vectors = self.index.vectors(shortlist)
        return {
            by_id[i].ref: embedding.dot(vector, embedding.unpack_vector(v))
            for i, v in vectors.items()
        }


def _contenders(
    fused: Mapping[str, tuple[float, float, float]],
    lifecycles: Mapping[str, str],
    k: int,
    w: SearchWeights,
) -> list[str]:
    """The refs that can still make the top ``k`` whatever their quality: a ref whose best
    possible score (quality 1) is below the k-th best worst-case score (quality 0) cannot, so
    its quality is never computed."""

    def factor(ref: str) -> float:
        return w.lifecycle.get(lifecycles[ref], w.lifecycle["active"])

    floor = sorted(
        (v[2] * (1 - w.quality_weight) * factor(ref) for ref, v in fused.items()), reverse=True
    )
    threshold = floor[k - 1] if len(floor) >= k else 0.0
    return [ref for ref, v in fused.items() if v[2] * factor(ref) >= threshold]


def candidates(view: View, filters: Filters) -> list[Artifact]:
    """The visible artifacts the filters keep before reading any file (type and lifecycle)."""
    allowed = filters.lifecycles or ("draft", "active", "deprecated")
    return [a for a in view.artifacts(filters.types) if a.lifecycle in allowed]


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
) -> Result:
    """Search what the connection can see (``filters.everywhere``: the shared scopes too)."""
    fts_query(query)  # refuse an empty query before any work
    try:
        try:
            return _search(ws, query, filters, k, semantic, quality)
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            discard(index_path(ws.root))  # corrupted while in use: start again, once
            result = _search(ws, query, filters, k, semantic, quality)
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
    ws: Workspace, query: str, filters: Filters, k: int, semantic: bool, quality: QualityFn | None
) -> Result:
    searcher = Searcher(ws, semantic=semantic)
    view = searcher.view(everywhere=filters.everywhere)
    pool = candidates(view, filters)
    update = searcher.refresh(pool)
    if filters.tags or filters.personas:
        rows = searcher.index.rows(a.ref for a in pool)
        pool = [a for a in pool if a.ref in rows and matches_labels(rows[a.ref].meta, filters)]
    hits = searcher.rank(query, pool, k=k, quality=quality)
    notes = list(searcher.notes)
    if searcher.mode == "lexical" and semantic:
        notes.append(LEXICAL_NOTE)
    return Result(hits, searcher.mode, notes, update, len(pool))


@guarded
def build_index(ws: Workspace, *, semantic: bool = True) -> Update:
    """Bring the cache up to date for every artifact of the repository (rows of artifacts that
    no longer exist are dropped): what a first search would otherwise do piecemeal."""
    searcher = Searcher(ws, semantic=semantic)
    update = searcher.refresh(index_artifacts(ws), prune=True)
    update.rebuilt = "; ".join(searcher.notes) or None
    return update


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
        results = quality_all(aggregate(ws.root), refs, load_weights(ws.root), time.time())
        return {q.skill: q.score for q in results}

    return scores


def opt_in_hint(artifact: Artifact) -> str | None:
    """How to turn a skill on for me, or why it cannot be; None when it is already on."""
    if artifact.type != "skill" or artifact.tier != "off":
        return None
    row = artifact.resolved
    reason = row.reason if row else None
    if artifact.lifecycle == "archived":
        return "archived: declare a successor instead"
    if reason in (Reason.DRAFT, Reason.DRAFT_OWNER_ONLY):
        return "draft: reaches only its owner until it is made active"
    if row is not None and reason is Reason.SUPERSEDED:
        return row.note
    if row is not None and reason is Reason.NOT_FOR_AGENT:
        return f"{row.note} (the declaration filters agents)"
    origin = "external" if artifact.home.startswith("external/") else artifact.home
    owner = f" --owner {artifact.owner}" if origin == "external" else ""
    return f"skills-promote {artifact.name} --from {origin}{owner} --to optional"


def hit_json(hit: Hit) -> dict[str, Any]:
    a = hit.artifact
    data = {
        "ref": a.ref,
        "type": a.type,
        "name": a.name,
        "home": a.home,
        "owner": a.owner,
        "lifecycle": a.lifecycle,
        "tier": a.tier,
        "description": one_line(hit.description, 200),
        "path": a.path.as_posix() if a.path else None,
        "score": round(hit.score, 6),
        "components": hit.components.as_json(),
    }
    hint = opt_in_hint(a)
    if hint:
        data["opt_in"] = hint
    return data
