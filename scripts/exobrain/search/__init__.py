"""Finding skills: what a connection may see (the corpus), the on-disk index, ranking (lexical
and semantic relevance, quality, lifecycle), task discovery, the read-only substrate verbs and
the change feed (events)."""
