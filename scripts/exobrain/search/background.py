"""The background build: the one-time embedding a query must not wait for.

MiniLM embeds 40 to 150 texts a second on one core, so a new repository of 8,000 real skills
needs three to four minutes of it, once. A search that finds more missing than it may embed
before answering (see :data:`exobrain.search.encoders.INLINE_SECONDS`) answers with the encoders
that are ready and starts ``python -m exobrain.search.build`` in a session of its own, the
way ``git gc --auto`` detaches: that process brings the whole cache up to date (committing
every batch, so it can be stopped at any point) and exits. ``exobrain index`` does the same in
the foreground with a progress display.

One builder at a time: it holds ``.exobrain-cache/index.flock`` while it runs (the kernel drops
the lock with the process, so a killed builder never blocks the next). Setting
``EXOBRAIN_SEARCH_BACKGROUND=0`` stops searches from starting one (the test suite does).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from exobrain.caches import INDEX_BUILD, REPO_CACHE
from exobrain.errors import OperationFailed
from exobrain.paths import cache_folder, python_module
from exobrain.util.locking import exclusive
from exobrain.util.staging import staged_file

ENV = "EXOBRAIN_SEARCH_BACKGROUND"
LOG_FILE = f"{INDEX_BUILD.folder}.log"
#: The builds this process started (a caller that must not outlive them can wait on them).
started: list[subprocess.Popen[bytes]] = []


def lock_target(root: Path) -> Path:
    """What the builder locks (:func:`exobrain.util.locking.exclusive` adds ``.flock``), in
    the repository's cache folder (made when missing; a link there is refused, as for the
    index)."""
    return cache_folder(root) / INDEX_BUILD.folder


def allowed() -> bool:
    return os.environ.get(ENV, "1") != "0"


def running(root: Path) -> bool:
    """Whether a builder holds the lock now."""
    if not (root / REPO_CACHE).is_dir():
        return False
    try:
        with exclusive(lock_target(root), timeout=0, root=root):
            return False
    except OperationFailed:
        return True


def start(root: Path) -> bool:
    """Start a background build unless one runs or they are turned off; whether one is
    running afterwards."""
    if running(root):
        return True
    if not allowed():
        return False
    try:  # the log is a file of our own, never written through a link (renamed in)
        with (
            staged_file(cache_folder(root) / LOG_FILE, root=root) as temp,
            open(temp, "wb") as log,
        ):
            started.append(
                subprocess.Popen(
                    python_module("exobrain.search.build", str(root)),
                    cwd=root,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env={**os.environ, ENV: "0"},
                )
            )
    except OSError:
        return False  # a read-only checkout: nothing to build into
    return True
