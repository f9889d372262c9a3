"""Paths as the toolkit shows them, and the data files it ships.

Every message and ``--json`` field names a file relative to the exobrain's root when it lies
inside, and absolutely otherwise, so one helper decides that for all of them.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The JSON schemas and default configuration files shipped inside the package.
PACKAGED_DATA = Path(__file__).parent / "schemas"
#: The per-repository cache folder (gitignored): the search index, harvested instances.
REPO_CACHE = ".exobrain-cache"
#: Overrides where the per-user cache lives (else ``$XDG_CACHE_HOME/exobrain``).
CACHE_ENV = "EXOBRAIN_CACHE_DIR"


def packaged(name: str) -> Path:
    """A data file shipped with the package (``skills.schema.json``, ``signal-weights.json``…)."""
    return PACKAGED_DATA / name


def user_cache_dir() -> Path:
    """The per-user cache: ``$EXOBRAIN_CACHE_DIR``, else ``$XDG_CACHE_HOME/exobrain``, else
    ``~/.cache/exobrain`` (a relative ``XDG_CACHE_HOME`` is ignored, as the spec says)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "exobrain"


def user_config_dir() -> Path:
    """This machine's per-user settings, outside every repository: ``$XDG_CONFIG_HOME/exobrain``,
    else ``~/.config/exobrain`` (what no repository may decide, such as which scripts to
    trust, lives here)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    return base / "exobrain"


def shown(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` in POSIX form when inside it, else the path as given."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def link_text(path: Path, base: Path, inside: bool) -> str:
    """How a generated index refers to ``path`` from ``base``: a relative path when the target
    is inside the repository (it survives moving the clone), else the absolute path."""
    return os.path.relpath(path, base) if inside else str(path)
