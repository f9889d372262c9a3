"""Skills in and out: import from folders, bundles, archives and git repositories, re-import of
a new upstream release, export to the Agent Skills format and Claude Code plugins, and one
adapter per foreign format."""
