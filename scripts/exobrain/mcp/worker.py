"""The one worker thread every call of the MCP server runs on, and what it keeps loaded.

Every call sees exactly what the connection sees for the server's agent
(:mod:`exobrain.mcp.view`). The workspace, the views, the search index and the encoders stay
loaded between calls (:mod:`exobrain.search.live`), checked at each call against the files
they were read from, so an edit made while the agent works shows in its next call. They are
shared (a SQLite connection belongs to the thread that opened it), so the calls run one at a
time, in order, on one thread; the reader of the wire goes on answering what needs no
toolkit (``initialize``, ``ping``, ``tools/list``) and refusing arguments over their caps
meanwhile.
"""

from __future__ import annotations

import importlib
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from exobrain.mcp.arguments import WORD_MAX, check_arguments
from exobrain.mcp.protocol import Pending
from exobrain.mcp.tools import MODULES, TOOLS, search

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.search.live import Live

T = TypeVar("T")


class Exobrain:
    """One exobrain as an agent reaches it: its root (None: the enclosing repository of the
    working folder) and the agent that is calling, whose view every answer is."""

    def __init__(self, repo: Path | None = None, agent: str | None = None) -> None:
        self.repo = repo
        self.agent = agent
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Pending]] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._live: Live | None = None
        self._warming = False

    def later(self, func: Callable[[Live], Any]) -> Pending:
        """``func`` of the live workspace, queued for the worker; its value (or what it
        raised) is handed on when it is done."""
        return self._queue(lambda: func(self.live()))

    def _queue(self, func: Callable[[], Any]) -> Pending:
        if self._worker is None:  # a daemon: a warm-up never holds up the exit
            self._worker = threading.Thread(target=self._work, name="exobrain", daemon=True)
            self._worker.start()
        done = Pending()
        self._jobs.put((func, done))
        return done

    def _work(self) -> None:
        while True:
            func, done = self._jobs.get()
            try:
                value = func()
            except BaseException as exc:
                done.finish(failure=exc)
            else:
                done.finish(value)

    def warm_up(self) -> None:
        """Load the toolkit, the workspace, the search index and the encoders on the worker
        (once), so the agent's first search does not wait for them. Started after the session
        is set up, never before the first answer; a failure is left for the real call."""
        if not self._warming:
            self._warming = True
            self._queue(self._warm)

    def _warm(self) -> None:
        try:
            self.imported()
            search(self.live(), {"query": "warm up the index and encoders", "k": 1})
        except Exception:
            pass

    def check(self) -> Pending:
        """:meth:`imported`, queued for the worker."""
        return self._queue(self.imported)

    @staticmethod
    def imported() -> list[str]:
        """Import every module the tools use (what a first call would import), so a
        missing one shows now: connect-agent's check of the server asks for this."""
        for name in MODULES:
            importlib.import_module(name)
        return list(MODULES)

    def live(self) -> Live:
        """The workspace and search index kept between calls (fresh at each: see
        :mod:`exobrain.search.live`)."""
        if self._live is None:
            from exobrain.search.live import Live

            self._live = Live(self.repo, agent=self.agent)
        return self._live

    def submit(self, name: str, arguments: dict[str, Any]) -> Pending:
        """Queue one tool call. The arguments are held to the tool's schema first, on the
        caller's thread, so one over its cap is refused at once (a UsageError raised here)
        and never queues behind the worker; domain errors of the call itself come with its
        result."""
        from exobrain.errors import UsageError

        tool = TOOLS.get(name)
        if tool is None:
            raise UsageError(
                f"unknown tool {name[:WORD_MAX]!r}", hint=f"use one of {', '.join(TOOLS)}"
            )
        check_arguments(name, tool.schema, arguments)
        arguments = {**arguments, "_agent": self.agent}
        return self.later(lambda live: tool.handler(live, arguments))

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool and wait for its answer (domain errors propagate)."""
        result: dict[str, Any] = self.submit(name, arguments).result()
        return result

    def on_worker(self, func: Callable[[Live], T]) -> T:
        """``func`` of the live workspace, run on the worker like every call, waited for."""
        result: T = self.later(func).result()
        return result

    def resources(self) -> list[dict[str, str]]:
        """The rows of ``resources/list``: what reaches the agent, and the documents."""
        from exobrain.mcp.resources import resource_rows

        return self.on_worker(resource_rows)

    def read(self, uri: str) -> str:
        """The markdown of the ``exobrain://`` resource ``uri`` names."""
        from exobrain.mcp.resources import read_resource

        return self.on_worker(lambda live: read_resource(live, uri))
