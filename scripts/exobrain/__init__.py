"""exobrain skills: a shared git repository as a scoped, versioned registry of agent skills.

The package is a library first (scopes, registries, resolution, …) with thin click commands in
``exobrain.cli``. Importing it stays cheap: nothing heavy is imported here.
"""

__version__ = "0.1.0"
