"""Finding skills: what a connection may see (the corpus), the on-disk index, ranking (lexical
and semantic relevance, quality, lifecycle), task discovery, the read-only substrate verbs and
the change feed (events)."""

import os

# A query multiplies one vector by a matrix of a few thousand rows, and the MiniLM encoder runs
# beside it on its own threads. BLAS worker threads gain nothing on work that small and keep
# spinning after it, taking the cores the encoder needs: on 2 cores a query of 8,000 skills
# took 2-3 times longer with them. One thread, unless the user chose otherwise (read when
# numpy is first imported, which only this family does).
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
