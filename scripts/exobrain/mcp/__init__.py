"""The exobrain inside the agent: a Model Context Protocol server over the substrate verbs."""
