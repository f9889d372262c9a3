"""The encoders of a search: which of them vote for a pool of documents, and the query's cosines.

An encoder votes when its vectors are complete for the pool, or when what is missing is quick
enough to embed before answering (:data:`INLINE_SECONDS`). When it is not — a new repository
with MiniLM, 40 to 150 texts a second — the encoder sits the query out, counted in
:attr:`Encoders.pending`, and a background build is started
(:mod:`exobrain.search.background`). A search kept open between queries
(:mod:`exobrain.search.live`) encodes the next query early (:meth:`Encoders.expect`).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.search import background, embedding
from exobrain.search.index import Index, Update
from exobrain.search.vectors import Aligned, VectorStore
from exobrain.util.progress import Progress

#: How long a query may spend embedding what is missing before it answers without that
#: encoder (and starts the background build): enough for every WordLlama text of thousands of
#: skills, or about a hundred MiniLM texts — edits, never a whole new repository.
INLINE_SECONDS = 2.0


class Encoders:
    """The encoders a searcher found (``models``, by role; none when search is lexical), their
    vector cache, and what the last ranking used of them."""

    def __init__(
        self,
        root: Path,
        index: Index,
        models: dict[str, embedding.Model],
        progress: Progress | None,
    ) -> None:
        self.root = root
        self.index = index
        self.models = models
        self.progress = progress
        self.vectors = VectorStore(index)
        self.used: list[str] = []  # the encoders that voted in the last ranking
        self.pending: dict[str, int] = {}  # encoder → texts still to embed for the last pool
        self._early: tuple[str, threading.Thread, dict[str, Any]] | None = None  # see expect

    def expect(self, query: str) -> None:
        """Start encoding ``query`` in a thread with the encoders that voted last time, while
        the caller brings rows up to date. The encoders release the GIL, so in a search kept
        open between queries (:mod:`exobrain.search.live`) that work overlaps the thousands
        of ``stat`` calls of an ``--all-scopes`` refresh; :meth:`cosines` takes the vectors
        (or encodes itself when the thread failed)."""
        models = {role: self.models[role] for role in self.used if role in self.models}
        if not models:
            return
        text, vectors = embedding.normalise(query), {}

        def encode() -> None:
            try:
                for role, model in models.items():
                    vectors[role] = embedding.load(model).encode([text])[0]
            except Exception:  # cosines() encodes again, and reports what fails
                pass

        thread = threading.Thread(target=encode, name="exobrain-encode", daemon=True)
        thread.start()
        self._early = (text, thread, vectors)

    def vectors_for(
        self, model: embedding.Model, pool: list[int] | None, budget: float | None, update: Update
    ) -> Aligned | None:
        """``model``'s aligned matrix once every doc of ``pool`` (None: the whole index) has
        its vectors: what is missing is embedded first (counted in ``update``), unless that
        would take more than ``budget`` seconds (None: no limit); then None, and
        :attr:`pending` counts it."""
        if pool is None:
            pool = [i for (i,) in self.index.db.execute("SELECT id FROM docs")]
        aligned = self.vectors.aligned(model, make=False)
        suspects = aligned.covers(pool) if aligned else self.vectors.suspects(model, pool)
        if aligned is not None and not suspects:
            return aligned
        texts = self.vectors.missing(model, suspects)
        if budget is not None and len(texts) * model.seconds_per_text > budget:
            self.pending[model.role] = len(texts)
            return None
        if texts:
            done = self.vectors.embed(embedding.load(model), texts, self.progress)
            update.embedded[model.role] = update.embedded.get(model.role, 0) + done
        return self.vectors.aligned(model)

    def ready(
        self, pool: list[int], notes: list[str], update: Update
    ) -> dict[str, tuple[embedding.Encoder, Aligned]]:
        """The encoders that can vote for the doc ids ``pool``: their vectors are complete for
        it, or what is missing was quick enough to embed now (else a background build is
        started and the encoder sits this query out, counted in :attr:`pending`). What the
        person should know goes to ``notes``."""
        ready = {}
        self.pending = {}
        for role, model in self.models.items():
            try:
                aligned = self.vectors_for(model, pool, INLINE_SECONDS, update)
                if aligned is not None:
                    ready[role] = (embedding.load(model), aligned)
            except (sqlite3.DatabaseError, ExobrainError):
                raise  # the cache's problems, not the encoder's
            except Exception as exc:  # a broken model file or runtime: say so, search on
                notes.append(f"{role} could not be used ({type(exc).__name__}: {exc})")
        if self.pending:
            notes.append(self._pending_note())
        return ready

    def _pending_note(self) -> str:
        what = ", ".join(f"{role} ({n:,} texts to embed)" for role, n in self.pending.items())
        if self.index.path is None:  # nothing would keep what a build embeds
            return f"not used: {what} (the search cache is temporary for this run)"
        if background.start(self.root):
            return (
                f"not used yet: {what}; embedding them in the background "
                f"(exobrain index shows the progress)"
            )
        return f"not used yet: {what}; run exobrain index to embed them"

    def cosines(
        self, query: str, doc_ids: list[int], notes: list[str], update: Update
    ) -> dict[str, Any]:
        """Encoder → the query's cosine with each doc of ``doc_ids`` (a list, or an array),
        for the encoders ready for these docs (see :meth:`ready`); they become :attr:`used`."""
        ready = self.ready(doc_ids, notes, update) if doc_ids else {}
        text, early = embedding.normalise(query), {}
        if self._early is not None and self._early[0] == text:
            self._early[1].join()
            early = self._early[2]
        self._early = None
        found: dict[str, Any] = {}
        for role, (encoder, aligned) in ready.items():
            vector = early[role] if role in early else encoder.encode([text])[0]
            cosines = aligned.cosines(vector, doc_ids)
            if cosines is not None:
                found[role] = cosines
        self.used = list(found)
        return found
