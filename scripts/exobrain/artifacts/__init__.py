"""Skills as versioned artifacts: semantic versions, the lock file, registering, lifecycle
moves, supersession and forks, promotion between scopes, and the Agent Skills rules and
artifact checks behind skills-validate."""
