"""Paths as the toolkit shows them, and the data files it ships.

Every message and ``--json`` field names a file relative to the exobrain's root when it lies
inside, and absolutely otherwise, so one helper decides that for all of them. The repository's
cache folder is made here too, as a real folder only.
"""

from __future__ import annotations

import os
from pathlib import Path

from exobrain.caches import OWNED, REPO_CACHE
from exobrain.model import GLOBAL

#: The JSON schemas and default configuration files shipped inside the package.
PACKAGED_DATA = Path(__file__).parent / "schemas"
#: Overrides where the per-user cache lives (else ``$XDG_CACHE_HOME/exobrain``).
CACHE_ENV = "EXOBRAIN_CACHE_DIR"


def cache_folder(root: Path, *parts: str) -> Path:
    """A folder inside the repository's cache ``.exobrain-cache`` (made when missing, with a
    ``.gitignore`` of ``*`` so no repository ever commits it).

    The cache and every folder below it must be real folders inside the repository: a
    committed ``.exobrain-cache`` link would send the search index (or harvested instances)
    wherever it points, so any link there is refused
    (:class:`~exobrain.util.confine.UnsafePath`, exit 2).
    """
    from exobrain.util.fileio import atomic_write_text, make_folders

    base = make_folders(root, root / REPO_CACHE, links=False)
    ignore = base / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        atomic_write_text(ignore, "*\n", root=root, durable=False)
    return make_folders(root, base.joinpath(*parts), links=False) if parts else base


def skill_dir(root: Path, home: str, name: str) -> Path:
    """Where an in-tree skill lives: ``<home>/skills/<name>``."""
    return (root if home == GLOBAL else root / home) / "skills" / name


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


def user_state_dir() -> Path:
    """The per-user state folder: ``$XDG_STATE_HOME/exobrain``, else
    ``~/.local/state/exobrain`` (the usage hook's log, connect-agent's ownership records)."""
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "state"
    return base / "exobrain"


def owned_records() -> Path:
    """Where the ownership records of agent folders live (:mod:`exobrain.util.ownership`)."""
    return user_state_dir() / OWNED.folder


#: The console scripts this toolkit installs (pyproject.toml's [project.scripts]).
CONSOLE_SCRIPTS = (
    "skills-status",
    "skills-validate",
    "skills-promote",
    "fetch-external-skills",
    "connect-agent",
    "exobrain",
    "authoring-review",
)


def console_script(name: str) -> str:
    """The absolute path of one of the toolkit's console scripts as this process would run
    it: the one installed beside the running interpreter, else the one on PATH, else (neither
    found) where it would be beside the interpreter. Hooks and crontab lines name it, since
    neither runs with the PATH of the shell that installed them."""
    import shutil
    import sys

    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    return shutil.which(name) or str(beside)


def python_module(module: str, *args: str) -> list[str]:
    """The command that runs ``module`` of the installed toolkit (or of the packages installed
    with it) in this interpreter, out of reach of the environment (:func:`isolation_flags`).

    The toolkit starts its processes (and agents start the commands it writes into their
    settings) inside a repository, where anyone who can push may commit an ``exobrain/``
    folder: ``python -m`` would put the current folder first on the import path, and a
    ``PYTHONPATH`` with an empty or relative entry (``export PYTHONPATH=$PYTHONPATH:/x`` leaves
    one) would put it before the installed packages."""
    import sys

    return [sys.executable, *isolation_flags(), "-m", module, *args]


def isolation_flags() -> list[str]:
    """The interpreter flags that keep the current folder and every ``PYTHON*`` variable out
    of a process the toolkit starts: ``-I`` (``-E -P -s``). Installed into the user's own
    site-packages (``pip install --user``), the toolkit needs that folder: ``-E -P``; and when
    ``PYTHONUSERBASE`` moved it, ``-E`` would lose it too: ``-P`` alone (``PYTHONPATH`` is
    then read; the one case where it is)."""
    import site

    here = Path(__file__).resolve().parent.parent  # the folder that holds the package
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user is None or not here.is_relative_to(Path(user).resolve()):
        return ["-I"]
    return ["-P"] if os.environ.get("PYTHONUSERBASE") else ["-E", "-P"]


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
