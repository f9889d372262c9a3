"""``index.html``: the catalog table, its filter/sort/search controls, and ``scopes.html``.

The table is complete without JavaScript; ``assets/catalog.js`` adds filters, sorting and
search as you type (state mirrored in the URL fragment, e.g. ``#q=pdf&tag=ops``).
Rows are in name order and row *i* is document *i* of the search index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from exobrain.site.data import Skill
from exobrain.site.layout import SiteModel, scope_path, skill_path
from exobrain.site.skeleton import badge, page, table
from exobrain.site.svg import quality_bar, sparkline
from exobrain.site.text import esc, one_line

__all__ = ["CATALOG_SCRIPTS", "catalog_html", "scopes_html"]

CATALOG_SCRIPTS = ("search-index.js", "assets/search.js", "assets/catalog.js")
_HEAD = (
    "Name",
    "Description",
    "Home",
    "Owner",
    "Tier",
    "Lifecycle",
    "Version",
    "Quality",
    "Uses, 90 days",
    "Last change",
)


def _select(ident: str, label: str, counts: Iterable[tuple[str, int]], any_label: str) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(v)} ({n})</option>' for v, n in counts)
    return (
        f'<label>{esc(label)} <select id="{ident}"><option value="">{esc(any_label)}'
        f"</option>{opts}</select></label>"
    )


def _marks(m: SiteModel, s: Skill) -> str:
    """A superseded skill and one whose files another skill has too say so in the table."""
    marks = []
    successor = m.superseded_by(s)
    if successor is not None:
        marks.append(
            f'<span class="mark" title="superseded by {esc(successor.ref)}">superseded</span>'
        )
    same = m.same_content.get(s.ref)
    if same:
        marks.append(
            f'<span class="mark" title="same content as {esc(", ".join(same))}">same content</span>'
        )
    return "".join(f" {mark}" for mark in marks)


def _row(m: SiteModel, i: int) -> str:
    s = m.cat.skills[i]
    q = "—" if s.quality is None else f"{s.quality:.2f}"
    return (
        f'<tr><td class="n"><a href="{esc(skill_path(s))}">{esc(s.name)}</a></td>'
        f'<td class="d">{esc(one_line(s.description))}</td>'
        f'<td class="nw"><a href="{esc(scope_path(s.home))}">{esc(s.home)}</a></td>'
        f'<td class="o">{esc(s.owner)}</td><td class="nw">{esc(s.tier)}</td>'
        f'<td class="nw">{badge("lc", s.lifecycle)}{_marks(m, s)}</td>'
        f'<td class="v">{esc(s.version)}</td>'
        f'<td class="q">{quality_bar(s.quality)} {q}</td>'
        f'<td class="u">{sparkline(s.usage)} {sum(s.usage)}</td>'
        f'<td class="nw">{esc(s.last_change[:10])}</td></tr>'
    )


def catalog_html(m: SiteModel) -> str:
    """The catalog page (``index.html``)."""
    cat = m.cat
    skills = cat.skills
    scopes = sorted(Counter(s.home for s in skills).items())
    tags = sorted(Counter(t for s in skills for t in set(s.tags)).items())
    personas = sorted(Counter(p for s in skills for p in set(s.personas)).items())
    order = {"active": 0, "draft": 1, "deprecated": 2, "archived": 3}
    lcs = sorted(
        Counter(s.lifecycle for s in skills).items(), key=lambda kv: (order.get(kv[0], 9), kv[0])
    )
    controls = (
        '<form id="controls" class="controls" role="search">'
        '<label class="search">Search <input id="q" type="search" autocomplete="off" '
        'spellcheck="false" placeholder="name, trigger, tag, words from the skill…"></label>'
        + _select("f-scope", "Scope", scopes, "all scopes")
        + _select("f-tag", "Tag", tags, "any tag")
        + _select("f-persona", "Persona", personas, "any persona")
        + _select("f-lifecycle", "Lifecycle", lcs, "any lifecycle")
        + '<label>Sort <select id="sort"><option value="">relevance, else name</option>'
        '<option value="name">name</option><option value="quality">quality</option>'
        '<option value="usage">usage (90 days)</option>'
        '<option value="changed">last change</option></select></label>'
        '<button type="reset" id="reset">Clear</button></form>'
    )
    rows = "".join(_row(m, i) for i in range(len(skills)))
    head = "".join(f"<th>{esc(h)}</th>" for h in _HEAD)
    body = (
        f"<h1>{esc(cat.title)}</h1>"
        f'<p class="muted">{len(skills)} skills in {len(scopes)} home scopes · '
        f"generated {esc(cat.generated_at)}</p>{controls}"
        f'<p id="count" class="count" aria-live="polite">{len(skills)} skills</p>'
        '<noscript><p class="muted">Search, filters and sorting need JavaScript; '
        "the table below lists every skill.</p></noscript>"
        f'<div class="table-wrap"><table id="catalog" class="catalog"><thead><tr>{head}'
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
        '<p class="more"><button type="button" id="more" hidden>Show more</button> '
        '<button type="button" id="all" hidden>Show all</button></p>'
    )
    return page(
        title=cat.title,
        site_title=cat.title,
        root="",
        body=body,
        scripts=CATALOG_SCRIPTS,
        page_class="catalog-page",
    )


def scopes_html(m: SiteModel) -> str:
    """``scopes.html``: every scope with its kind, chain and number of skills."""
    rows = []
    for name, sc in m.cat.scopes.items():
        chain = " → ".join(f'<a href="{esc(scope_path(c))}">{esc(c)}</a>' for c in sc.chain)
        rows.append(
            [
                f'<a href="{esc(scope_path(name))}">{esc(name)}</a>',
                esc(sc.kind),
                chain,
                str(len(m.homed.get(name, []))),
            ]
        )
    body = "<h1>Scopes</h1>" + table(
        ("Scope", "Kind", "Chain", "Skills"), rows, cls="scopes", empty="No scopes."
    )
    return page(title=f"Scopes · {m.cat.title}", site_title=m.cat.title, root="", body=body)
