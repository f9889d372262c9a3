"""One page per skill: body, frontmatter, files, lock, declarations, links both ways,
signals with a chart, and copyable commands. Pages live two folders deep
(``skills/<home>/<name>.html``), so every link to the root starts with ``../../``.
"""

from __future__ import annotations

import json
import posixpath
import shlex
from typing import Any
from urllib.parse import unquote

from exobrain.site.data import INVERSE_LINK, LINK_TYPES, Command, Skill
from exobrain.site.layout import SiteModel, scope_path, skill_path
from exobrain.site.safe_markdown import render_markdown
from exobrain.site.skeleton import badge, depth_prefix, fmt_bytes, page, table
from exobrain.site.svg import quality_bar, signals_chart, sparkline
from exobrain.site.text import esc

__all__ = ["PAGE_SCRIPTS", "default_commands", "skill_html"]

PAGE_SCRIPTS = ("assets/page.js",)
ROOT = depth_prefix(2)
EXTERNAL_PREFIX = "external/"
_LINK_LABEL = {
    "supersedes": "Supersedes",
    "derives_from": "Derives from",
    "uses_skill": "Uses",
    "superseded_by": "Superseded by",
    "derived_into": "Derived into",
    "used_by": "Used by",
}


def default_commands(s: Skill, repo: str = "") -> list[Command]:
    """Opt-in, always-on, export and import commands for ``s``, shell-quoted."""
    n, ref = shlex.quote(s.name), shlex.quote(f"skill:{s.ref}")
    if s.home.startswith(EXTERNAL_PREFIX):
        origin = f"--from external --owner {shlex.quote(s.home.removeprefix(EXTERNAL_PREFIX))}"
    else:
        origin = f"--from {shlex.quote(s.home)}"
    cmds: list[Command] = [
        {
            "label": "Opt in (optional for you)",
            "command": f"skills-promote {n} {origin} --to optional",
        },
        {"label": "Always load it for you", "command": f"skills-promote {n} {origin} --to always"},
        {
            "label": "Export it as an Agent Skills folder",
            "command": f"exobrain export {ref} --format agentskills-io -o {n}",
        },
    ]
    if repo and not s.home.startswith(EXTERNAL_PREFIX):
        path = s.path or (f"skills/{s.name}" if s.home == "global" else f"{s.home}/skills/{s.name}")
        cmds.append(
            {
                "label": "Import it into another exobrain",
                "command": f"exobrain import {shlex.quote(f'{repo}/{path}')}",
            }
        )
    else:
        cmds.append(
            {
                "label": "Import the exported folder into another exobrain",
                "command": f"exobrain import ./{n} --into SCOPE",
            }
        )
    return cmds


def _rewriter(m: SiteModel, s: Skill) -> Any:
    files = {posixpath.normpath(f["path"]): k for k, f in enumerate(s.files)}

    def rewrite(href: str) -> str | None:
        if href.lower().startswith("skill:"):
            t = m.resolve(href, s)
            return ROOT + skill_path(t) if t else None
        path = posixpath.normpath(unquote(href.split("#", 1)[0].split("?", 1)[0]))
        if path in files:
            return f"#file-{files[path]}"
        parts = path.split("/")
        if len(parts) >= 2 and parts[0] == ".." and parts[1] not in ("", ".."):
            t = m.resolve(f"{parts[1]}@{s.home}")  # ../other-skill/SKILL.md
            return ROOT + skill_path(t) if t else None
        return None

    return rewrite


def _value(v: Any) -> str:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return esc("" if v is None else v)
    if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
        return esc(", ".join(str(x) for x in v))
    return f"<code>{esc(json.dumps(v, ensure_ascii=False, sort_keys=True, default=str))}</code>"


def _skill_link(m: SiteModel, t: Skill | None, label: str) -> str:
    if t is None:
        return f'<span class="unresolved">{esc(label)} (not in this catalog)</span>'
    return f'<a href="{esc(ROOT + skill_path(t))}">{esc(t.ref)}</a>'


def _superseded(m: SiteModel, s: Skill) -> str:
    successor = m.superseded_by(s)
    if successor is None:
        return ""
    return " — superseded by " + _skill_link(m, successor, successor.ref)


def _links(m: SiteModel, s: Skill) -> str:
    out: list[str] = []
    for typ in LINK_TYPES:
        items = [
            _skill_link(m, m.resolve(lk["target"], s), lk["target"])
            for lk in s.links
            if lk["type"] == typ
        ]
        if items:
            out.append(
                f"<dt>{_LINK_LABEL[typ]}</dt>"
                + "".join(f'<dd class="out-{typ}">{i}</dd>' for i in items)
            )
    for typ in INVERSE_LINK.values():
        items = [_skill_link(m, src, src.ref) for t, src in m.incoming.get(s.ref, []) if t == typ]
        if items:
            out.append(
                f"<dt>{_LINK_LABEL[typ]}</dt>"
                + "".join(f'<dd class="in-{typ}">{i}</dd>' for i in items)
            )
    return f'<dl class="links">{"".join(out)}</dl>' if out else '<p class="muted">None.</p>'


def _lock(s: Skill) -> str:
    state = str(s.lock.get("state") or ("locked" if s.lock else "not locked"))
    rows = [[esc(k), _value(v)] for k, v in s.lock.items() if k != "state"]
    return f'<p id="lock-state" class="lock">Lock state: {badge("lock", state)}</p>' + (
        table(("Field", "Value"), rows, cls="kv") if rows else ""
    )


def _signals(s: Skill) -> str:
    timeline = list(s.signals.get("timeline") or [])
    totals = {
        "uses": sum(int(p.get("uses", 0)) for p in timeline),
        "votes up": sum(int(p.get("up", 0)) for p in timeline),
        "votes down": sum(int(p.get("down", 0)) for p in timeline),
    }
    summary = {
        **dict(s.signals.get("summary") or {}),
        **{f"{k} (timeline)": v for k, v in totals.items()},
    }
    rows = [[esc(k), _value(v)] for k, v in summary.items()]
    return (
        table(("Signal", "Value"), rows, cls="kv")
        + f"<figure>{signals_chart(timeline)}<figcaption>Uses (top) and votes "
        "(bottom: up above the line, down below) over time.</figcaption></figure>"
    )


def _commands(cmds: list[Command]) -> str:
    items = []
    for k, c in enumerate(cmds):
        items.append(
            f'<li><span class="label">{esc(c["label"])}</span>'
            f'<pre><code id="cmd-{k}">{esc(c["command"])}</code></pre>'
            f'<button type="button" class="copy" data-copy="cmd-{k}">Copy</button></li>'
        )
    return f'<ul class="commands">{"".join(items)}</ul>'


def skill_html(m: SiteModel, s: Skill) -> str:
    """The page of skill ``s``."""
    q = "unknown" if s.quality is None else f"{s.quality:.2f}"
    facts = [
        ("Home", f'<a href="{esc(ROOT + scope_path(s.home))}">{esc(s.home)}</a>'),
        ("Owner", esc(s.owner)),
        ("Default tier", esc(s.tier)),
        ("Lifecycle", badge("lc", s.lifecycle) + _superseded(m, s)),
        ("Version", esc(s.version)),
        ("Quality", f"{quality_bar(s.quality)} {q}"),
        ("Uses, 90 days", f"{sparkline(s.usage, 180, 30)} {sum(s.usage)}"),
        ("Last change", esc(s.last_change)),
        ("Tags", esc(", ".join(s.tags))),
        ("Personas", esc(", ".join(s.personas))),
        ("Triggers", esc("; ".join(s.triggers))),
    ]
    same = [m.by_ref[ref] for ref in m.same_content.get(s.ref, [])]
    if same:
        facts.append(
            ("Same content as", ", ".join(_skill_link(m, other, other.ref) for other in same))
        )
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    files = table(
        ("Path", "Size", "SHA-256"),
        (
            [
                f"<code>{esc(f['path'])}</code>",
                esc(fmt_bytes(int(f.get("size", 0)))),
                f'<code class="hash">{esc(f.get("sha256", ""))}</code>',
            ]
            for f in s.files
        ),
        cls="files",
        row_ids=[f"file-{k}" for k in range(len(s.files))],
        empty="No files listed.",
    )
    decls = table(
        ("Scope", "Kind", "Tier", "File", "Note"),
        (
            [
                f'<a href="{esc(ROOT + scope_path(str(d.get("scope", ""))))}">'
                f"{esc(d.get('scope', ''))}</a>"
                if d.get("scope")
                else "",
                esc(d.get("kind", "")),
                esc(d.get("tier", "")),
                f"<code>{esc(d['file'])}</code>" if d.get("file") else "",
                esc(d.get("note", "")),
            ]
            for d in s.declarations
        ),
        cls="decls",
        empty="No declaration or override mentions this skill.",
    )
    front = table(
        ("Key", "Value"),
        ([esc(k), _value(v)] for k, v in s.frontmatter.items()),
        cls="kv",
        empty="No frontmatter.",
    )
    body_html = render_markdown(s.body, _rewriter(m, s))
    cmds = s.commands if s.commands is not None else default_commands(s, m.cat.repo)
    body = (
        f'<p class="crumbs"><a href="{ROOT}index.html">Catalog</a> › '
        f'<a href="{esc(ROOT + scope_path(s.home))}">{esc(s.home)}</a></p>'
        f'<h1 id="skill-name">{esc(s.name)} <small>@{esc(s.home)}</small></h1>'
        f'<p class="lead">{esc(s.description)}</p>'
        f'<div class="cols"><section class="facts"><dl class="facts">{dl}</dl></section>'
        f'<section id="commands"><h2>Commands</h2>{_commands(cmds)}</section></div>'
        f'<section id="lock"><h2>Lock</h2>{_lock(s)}</section>'
        f'<section id="body" class="skill-body"><h2>SKILL.md</h2>'
        f'<article class="md">{body_html}</article></section>'
        f'<section id="frontmatter"><h2>Frontmatter</h2>{front}</section>'
        f'<section id="files"><h2>Files</h2>{files}</section>'
        f'<section id="declarations"><h2>Declarations and overrides</h2>{decls}</section>'
        f'<section id="links"><h2>Links</h2>{_links(m, s)}</section>'
        f'<section id="signals"><h2>Signals</h2>{_signals(s)}</section>'
    )
    return page(
        title=f"{s.name}@{s.home} · {m.cat.title}",
        site_title=m.cat.title,
        root=ROOT,
        body=body,
        scripts=PAGE_SCRIPTS,
        page_class="skill-page",
    )
