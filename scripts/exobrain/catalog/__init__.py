"""What ``skills-status`` prints: the status view of a connection (:mod:`.status`) and the
catalog of every declaration (:mod:`.rows`), as text made row by row (:mod:`.text`). The
printed catalog is one call (:mod:`.answer`): kept whole while nothing changed (:mod:`.memo`),
else patched from the rows kept at the last run (:mod:`.kept`, :mod:`.patch`) or published on a
branch for fresh clones (:mod:`.publish`), else rendered in full.

No other family imports this one (a contract in pyproject.toml): it is the end of a command."""
