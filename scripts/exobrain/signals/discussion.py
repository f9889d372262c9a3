"""Posting a comment: the one writer of ``comment`` lines (the text rules and the thread are
:mod:`exobrain.signals.comments`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from exobrain.errors import UsageError
from exobrain.signals.ledger import make_signal, record_signal
from exobrain.signals.view import skill_thread
from exobrain.workspace import Workspace


def post_comment(
    ws: Workspace,
    skill: str,
    text: str,
    *,
    by: str,
    host: str,
    agent: str | None = None,
    reply_to: str | None = None,
) -> tuple[dict[str, Any], Path, str | None]:
    """Append a comment about ``skill`` (a canonical ref) to its author's ledger; a reply
    must answer a comment about the same skill. Returns the line, the ledger and a warning."""
    line = make_signal("comment", skill, text, by=by, host=host, agent=agent, reply_to=reply_to)
    if reply_to:
        known = {c["id"] for c in skill_thread(ws, skill)}
        if reply_to not in known:
            raise UsageError(
                f"no comment {reply_to} about {skill}",
                hint=f"exobrain signals {skill} lists its comments and their ids",
            )
    path, warning = record_signal(ws.root, line)
    return line, path, warning
