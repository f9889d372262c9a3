"""One page per scope: its chain (root first), the skills it is home to, the
declarations and overrides made in it, and the scopes directly below it."""

from __future__ import annotations

from exobrain.site.layout import SiteModel, scope_path, skill_path
from exobrain.site.skeleton import badge, depth_prefix, page, table
from exobrain.site.svg import quality_bar
from exobrain.site.text import esc, one_line

__all__ = ["scope_html"]

ROOT = depth_prefix(1)


def _scope_link(m: SiteModel, name: str) -> str:
    return f'<a href="{esc(ROOT + scope_path(name))}">{esc(name)}</a>'


def scope_html(m: SiteModel, name: str) -> str:
    """The page of scope ``name`` (which must be in ``m.cat.scopes``)."""
    sc = m.cat.scopes[name]
    chain = " → ".join(
        _scope_link(m, c) if c != name else f"<strong>{esc(c)}</strong>" for c in sc.chain
    )
    skills = table(
        ("Skill", "Description", "Tier", "Lifecycle", "Quality"),
        (
            [
                f'<a href="{esc(ROOT + skill_path(s))}">{esc(s.name)}</a>',
                esc(one_line(s.description)),
                esc(s.tier),
                badge("lc", s.lifecycle),
                quality_bar(s.quality),
            ]
            for s in m.homed.get(name, [])
        ),
        cls="skills",
        empty="No skill has its home here.",
    )
    decls = table(
        ("Skill", "Kind", "Tier", "File", "Note"),
        (
            [
                f'<a href="{esc(ROOT + skill_path(s))}">{esc(s.ref)}</a>',
                esc(d.get("kind", "")),
                esc(d.get("tier", "")),
                f"<code>{esc(d['file'])}</code>" if d.get("file") else "",
                esc(d.get("note", "")),
            ]
            for s, d in m.declared_in.get(name, [])
        ),
        cls="decls",
        empty="No declaration or override here.",
    )
    below = ", ".join(_scope_link(m, c) for c in sorted(m.children.get(name, []))) or "none"
    note = "" if sc.given else '<p class="muted">Known only from mentions in the data.</p>'
    body = (
        f'<p class="crumbs"><a href="{ROOT}index.html">Catalog</a> › '
        f'<a href="{ROOT}scopes.html">Scopes</a></p>'
        f'<h1 id="scope-name">{esc(name)}</h1>{note}'
        f'<p class="lead">{esc(sc.description)}</p>'
        f'<dl class="facts"><dt>Kind</dt><dd>{esc(sc.kind or "—")}</dd>'
        f'<dt>Chain</dt><dd id="chain">{chain}</dd><dt>Below</dt><dd>{below}</dd></dl>'
        f'<section id="skills"><h2>Skills at home here</h2>{skills}</section>'
        f'<section id="declarations"><h2>Declarations and overrides in this scope</h2>'
        f"{decls}</section>"
    )
    return page(
        title=f"{name} · {m.cat.title}",
        site_title=m.cat.title,
        root=ROOT,
        body=body,
        page_class="scope-page",
    )
