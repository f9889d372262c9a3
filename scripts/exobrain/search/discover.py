"""Discovery: the few skills an agent should load for a task (SPEC-013 section 8).

Search with the task text over the visible skills, then keep a skill only when

* **its triggers match** — a skill that declares triggers passes when one of them shares a
  word with the task or is close to it in meaning: its cosine with the task, by the best
  encoder that ranked, is at least that encoder's ``discover.trigger_min_cosine``; a skill
  without triggers passes on relevance alone;
* **the persona fits** — with ``--persona P``, a skill passes when P is among its personas
  or tags, or when it names no personas at all;
* **its dependencies resolve** — every ``dependencies.skills`` reference must name a skill
  this connection can see that is not archived; ``dependencies.tools`` missing from PATH and
  ``dependencies.mcp_servers`` are flagged, not filtered (the agent may have them elsewhere).

Archived skills and other people's drafts are never proposed.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass, field
from html import escape
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.reach import Reach
from exobrain.refs import parse_ref
from exobrain.search import embedding
from exobrain.search.artifact import Artifact
from exobrain.search.corpus import open_view
from exobrain.search.engine import LEXICAL_NOTE, QualityFn, Searcher, guarded
from exobrain.search.hits import Hit, hit_json, opt_in_hint
from exobrain.search.query import content_words, fts_query
from exobrain.skillmd import as_list, one_line
from exobrain.util.progress import Progress
from exobrain.util.terminal import safe_line, safe_text
from exobrain.workspace import Workspace

POOL = 8  # candidates ranked per skill asked for, before the filters


@dataclass
class Pick:
    hit: Hit
    trigger: str | None = None  # the trigger that matched, if any
    missing_tools: list[str] = field(default_factory=list)
    mcp_servers: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        data = hit_json(self.hit)
        data.update(
            {
                "matched_trigger": self.trigger,
                "missing_tools": self.missing_tools,
                "mcp_servers": self.mcp_servers,
            }
        )
        return data


@dataclass
class Discovery:
    task: str
    picks: list[Pick]
    excluded: list[dict[str, str]]
    mode: str
    notes: list[str]
    encoders: list[str] = field(default_factory=list)  # the encoders that ranked


@guarded
def discover(
    ws: Workspace,
    task: str,
    *,
    persona: str | None = None,
    k: int = 5,
    semantic: bool = True,
    quality: QualityFn | None = None,
    progress: Progress | None = None,
    agent: str | None = None,
    preload: bool = False,
) -> Discovery:
    """The top ``k`` skills for ``task`` among what the connection shows ``agent`` (None:
    agent-neutral), above the relevance floor: never a barred one (filtered for the agent,
    set off, someone else's draft, superseded). With ``preload`` — an answer the agent reads
    unasked: connect-agent's ``--discover`` file, the MCP ``discover`` tool — only a skill
    that reaches the agent (always, optional), never an unlisted or an off one. Otherwise,
    when the best match is in a scope the connection does not reach, a note says which and
    how to opt in."""
    fts_query(task)  # an empty task is a usage error, before any work
    searcher = Searcher(ws, semantic=semantic, progress=progress, agent=agent)
    view = searcher.view()
    pool = [
        a
        for a in view.skills()
        if a.lifecycle != "archived"
        and (a.reach is Reach.LISTED if preload else a.reach is not Reach.BARRED)
        and not (a.resolved is None and a.lifecycle == "draft")
    ]
    searcher.refresh(pool)
    hits, _ = searcher.rank(task, pool, k=max(k * POOL, k), quality=quality)
    visible = {a.ref: a for a in pool}
    task_words = content_words(task)
    meaning = _TriggerMeaning(searcher, task)
    picks: list[Pick] = []
    excluded: list[dict[str, str]] = []
    for hit in hits:
        if len(picks) == k:
            break
        meta = hit.meta
        reason = _persona_problem(meta, persona)
        trigger = None
        if reason is None:
            ok, trigger = _trigger_match(meta, task_words, meaning)
            reason = None if ok else "no trigger matches the task"
        if reason is None:
            reason = _dependency_problem(meta, view.skills(), visible)
        if reason is not None:
            excluded.append({"ref": hit.artifact.ref, "reason": reason})
            continue
        deps = meta.get("dependencies")
        if not isinstance(deps, dict):
            deps = {}
        tools = [str(t) for t in as_list(deps.get("tools"))]
        servers = [str(s) for s in as_list(deps.get("mcp_servers"))]
        picks.append(Pick(hit, trigger, [t for t in tools if shutil.which(t) is None], servers))
    notes = list(searcher.notes)
    if semantic and not searcher.encoders.models:
        notes.append(LEXICAL_NOTE)
    elsewhere = None if preload else _best_elsewhere(searcher, task, picks, quality)
    if elsewhere is not None:
        notes.append(elsewhere)
    return Discovery(task, picks, excluded, searcher.mode, notes, list(searcher.encoders.used))


def _best_elsewhere(
    searcher: Searcher, task: str, picks: list[Pick], quality: QualityFn | None
) -> str | None:
    """A note when the best match for ``task`` among every scope's skills lies outside the
    connection's chain (and above the floor): which it is and the command that opts in."""
    view = open_view(searcher.ws, everywhere=True, agent=searcher.agent)
    outside = [
        a
        for a in view.skills()
        if a.reach is Reach.OUTSIDE and a.lifecycle in ("active", "deprecated")
    ]
    if not outside:
        return None
    searcher.refresh(outside)
    pool = [*outside, *(p.hit.artifact for p in picks)]
    found, _ = searcher.rank(task, pool, k=1, quality=quality)
    if not found or found[0].artifact.reach is not Reach.OUTSIDE:
        return None
    best = found[0].artifact
    return (
        f"the best match, {best.ref}, is in a scope you are not connected to; to use it: "
        f"{opt_in_hint(best)}"
    )


def _persona_problem(meta: dict[str, Any], persona: str | None) -> str | None:
    if not persona:
        return None
    personas = {str(p).lower() for p in as_list(meta.get("personas"))}
    tags = {str(t).lower() for t in as_list(meta.get("tags"))}
    if not personas or persona.lower() in personas | tags:
        return None
    return f"for personas {', '.join(sorted(personas))}, not {persona}"


class _TriggerMeaning:
    """Cosines between the task and triggers, by the best encoder that ranked (none: lexical
    ranking, so triggers match by their words only). The task is embedded on first need."""

    def __init__(self, searcher: Searcher, task: str) -> None:
        used = searcher.encoders.used
        self.role = used[0] if used else None
        self.model = searcher.encoders.models[self.role] if self.role else None
        self.threshold = searcher.weights.trigger_min_cosine.get(self.role or "", 1.0)
        self.task = task

    @functools.cached_property
    def _task_vector(self) -> Any:
        assert self.model is not None
        return embedding.load(self.model).encode([embedding.normalise(self.task)])[0]

    def best(self, triggers: list[str]) -> str | None:
        """The trigger closest to the task when it is close enough, else None."""
        if self.model is None:
            return None
        encoder = embedding.load(self.model)
        vectors = encoder.encode([embedding.normalise(t) or "-" for t in triggers])
        cosines = [float(v @ self._task_vector) for v in vectors]
        top = max(range(len(triggers)), key=lambda i: cosines[i])
        return triggers[top] if cosines[top] >= self.threshold else None


def _trigger_match(
    meta: dict[str, Any], task_words: set[str], meaning: _TriggerMeaning
) -> tuple[bool, str | None]:
    triggers = [str(t) for t in as_list(meta.get("triggers"))]
    if not triggers:
        return True, None
    for trigger in triggers:
        if content_words(trigger) & task_words:
            return True, trigger
    close = meaning.best(triggers)
    return close is not None, close


def _dependency_problem(
    meta: dict[str, Any], skills: list[Artifact], visible: dict[str, Artifact]
) -> str | None:
    deps = meta.get("dependencies")
    if not isinstance(deps, dict):
        return None
    for text in as_list(deps.get("skills")):
        try:
            ref = parse_ref(str(text))
        except ExobrainError:
            return f"dependency {text!r} is not a skill reference"
        found = [
            a
            for a in skills
            if a.name == ref.name
            and a.lifecycle != "archived"
            and (ref.home is None or a.home == ref.home)
        ]
        if not found:
            return f"needs {text}, which you cannot see"
    return None


def render_markdown(result: Discovery) -> str:
    lines = ["# Skills for this task", "", f"Task: {one_line(result.task, 200)}", ""]
    if not result.picks:
        lines.append("No visible skill fits this task.")
    for number, pick in enumerate(result.picks, 1):
        a = pick.hit.artifact
        tier = f"{a.tier} for you" if a.tier != "off" else "not on for you"
        lines.append(
            f"{number}. **{a.name}** ({a.home}, {tier}) — {one_line(pick.hit.description, 160)}"
        )
        details = [f"path: `{a.path}`" if a.path else "not installed"]
        if pick.trigger:
            details.append(f'trigger: "{pick.trigger}"')
        if pick.missing_tools:
            details.append(f"missing tools: {', '.join(pick.missing_tools)}")
        if pick.mcp_servers:
            details.append(f"needs MCP servers: {', '.join(pick.mcp_servers)}")
        lines.append("   " + "; ".join(details))
    # names, descriptions, triggers, paths and the task came from files or the caller: each
    # line is one line, through the one output filter (the text is printed to a terminal)
    return "\n".join(map(safe_line, lines)) + "\n"


def render_prompt(result: Discovery) -> str:
    """The ``<available_skills>`` block agents read (name, description, location), what
    came from files through the one output filter (it is printed to a terminal too)."""
    parts = ["<available_skills>"]
    for pick in result.picks:
        a = pick.hit.artifact
        if a.path is None:
            continue
        parts += [
            "<skill>",
            "<name>",
            safe_line(escape(a.name)),
            "</name>",
            "<description>",
            safe_text(escape(pick.hit.description)),
            "</description>",
            "<location>",
            safe_line(escape(str(a.path))),
            "</location>",
            "</skill>",
        ]
    parts.append("</available_skills>")
    return "\n".join(parts) + "\n"
