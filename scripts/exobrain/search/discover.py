"""Discovery: the few skills an agent should load for a task (SPEC-013 section 8).

Search with the task text over the visible skills, then keep a skill only when

* **its triggers match** — a skill that declares triggers passes when one of them shares a
  word with the task or (semantic half on) is close to it in meaning (cosine at least
  ``discover.trigger_min_cosine``); a skill without triggers passes on relevance alone;
* **the persona fits** — with ``--persona P``, a skill passes when P is among its personas
  or tags, or when it names no personas at all;
* **its dependencies resolve** — every ``dependencies.skills`` reference must name a skill
  this connection can see that is not archived; ``dependencies.tools`` missing from PATH and
  ``dependencies.mcp_servers`` are flagged, not filtered (the agent may have them elsewhere).

Archived skills and other people's drafts are never proposed.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from html import escape
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.model import Reason
from exobrain.refs import parse_ref
from exobrain.search import embedding
from exobrain.search.corpus import Artifact
from exobrain.search.engine import Hit, QualityFn, Searcher, fts_query, guarded, hit_json
from exobrain.skillmd import as_list, one_line
from exobrain.workspace import Workspace

POOL = 8  # candidates ranked per skill asked for, before the filters
_WORD = re.compile(r"\w+", re.UNICODE)


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


def stem(word: str) -> str:
    """A crude English stem, enough to see that "docking" and "dock" share a word."""
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    from exobrain.search.engine import STOPWORDS

    return {stem(w) for w in _WORD.findall(text) if w.lower() not in STOPWORDS}


@guarded
def discover(
    ws: Workspace,
    task: str,
    *,
    persona: str | None = None,
    k: int = 5,
    semantic: bool = True,
    quality: QualityFn | None = None,
) -> Discovery:
    fts_query(task)  # an empty task is a usage error, before any work
    searcher = Searcher(ws, semantic=semantic)
    view = searcher.view()
    pool = [
        a
        for a in view.skills()
        if a.lifecycle != "archived"
        and not (a.resolved and a.resolved.reason is Reason.DRAFT_OWNER_ONLY)
        and not (a.resolved is None and a.lifecycle == "draft")
    ]
    searcher.refresh(pool)
    hits = searcher.rank(task, pool, k=max(k * POOL, k), quality=quality)
    visible = {a.ref: a for a in pool}
    task_words = content_words(task)
    task_vector = searcher.encoder().encode(task) if searcher.model is not None else None
    picks: list[Pick] = []
    excluded: list[dict[str, str]] = []
    for hit in hits:
        if len(picks) == k:
            break
        meta = hit.meta
        reason = _persona_problem(meta, persona)
        trigger = None
        if reason is None:
            ok, trigger = _trigger_match(meta, task_words, task_vector, searcher)
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
    if searcher.model is None and semantic:
        from exobrain.search.engine import LEXICAL_NOTE

        notes.append(LEXICAL_NOTE)
    return Discovery(task, picks, excluded, searcher.mode, notes)


def _persona_problem(meta: dict[str, Any], persona: str | None) -> str | None:
    if not persona:
        return None
    personas = {str(p).lower() for p in as_list(meta.get("personas"))}
    tags = {str(t).lower() for t in as_list(meta.get("tags"))}
    if not personas or persona.lower() in personas | tags:
        return None
    return f"for personas {', '.join(sorted(personas))}, not {persona}"


def _trigger_match(
    meta: dict[str, Any], task_words: set[str], task_vector: list[float] | None, searcher: Searcher
) -> tuple[bool, str | None]:
    triggers = [str(t) for t in as_list(meta.get("triggers"))]
    if not triggers:
        return True, None
    for trigger in triggers:
        if content_words(trigger) & task_words:
            return True, trigger
    if task_vector is not None:
        best, best_trigger = -1.0, None
        for trigger in triggers:
            vector = searcher.encoder().encode(trigger)
            if vector is not None:
                similarity = embedding.dot(task_vector, vector)
                if similarity > best:
                    best, best_trigger = similarity, trigger
        if best >= searcher.weights.trigger_min_cosine:
            return True, best_trigger
    return False, None


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
    return "\n".join(lines) + "\n"


def render_prompt(result: Discovery) -> str:
    """The ``<available_skills>`` block agents read (name, description, location)."""
    parts = ["<available_skills>"]
    for pick in result.picks:
        a = pick.hit.artifact
        if a.path is None:
            continue
        parts += [
            "<skill>",
            "<name>",
            escape(a.name),
            "</name>",
            "<description>",
            escape(pick.hit.description),
            "</description>",
            "<location>",
            escape(str(a.path)),
            "</location>",
            "</skill>",
        ]
    parts.append("</available_skills>")
    return "\n".join(parts) + "\n"
