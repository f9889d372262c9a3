"""The registries: ``skills.json`` files read into entries (:mod:`.entries`) under the fast
structural rules every load applies (:mod:`.rules`), checked in full against the JSON Schema
by validation (:mod:`.schema`), and changed only through the one locked, style-keeping editor
(:mod:`.editor`)."""
