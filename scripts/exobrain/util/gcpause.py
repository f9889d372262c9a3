"""Cyclic garbage collection paused while a big graph of objects that all stay alive is built.

Reading a repository of 100,000 people makes a million registry entries and catalog rows;
each collection the interpreter starts on the way walks all of them again, for nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(*, for_good: bool = False) -> Iterator[None]:
    """No cyclic garbage collection while a big graph of objects that all stay alive is built
    (a catalog of a million entries): collecting them again and again only costs time.

    ``for_good``: what was made stays alive until the process ends (a command's last step).
    Then it is handed to the permanent generation (:func:`gc.freeze`) instead of being walked
    by the first collection after the pause (about 1 s for a million objects); reference
    counting still frees each of them when dropped. Not for a long-lived process (the MCP
    server), where cyclic garbage frozen with them would never be collected."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if for_good:
                gc.freeze()
            gc.enable()
