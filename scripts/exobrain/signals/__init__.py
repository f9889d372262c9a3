"""Signal ledgers (votes, ranks, usage, outcomes, funding) kept as JSON lines in git: reading,
writing, aggregation with its cache, compaction, the quality score, the sweep that retires
low-quality skills, and the Claude Code usage hook."""
