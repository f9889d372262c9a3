"""SKILL.md to safe HTML with markdown-it-py.

Safety model (defence in depth, the CSP meta tag of every page being the second layer):

* raw HTML is disabled, so ``<script>``, ``<img onerror=…>`` and friends come out as text;
* markdown-it's own ``validateLink`` already refuses ``javascript:``, ``vbscript:``,
  ``file:`` and non-image ``data:`` URLs (the source text is left as text);
* every remaining link goes through ``rewrite_link`` (given by the caller in ``env``):
  it returns the href to use, or ``None`` for a dead link, rendered as a ``<span>``.
  The default policy keeps only ``http:``, ``https:``, ``mailto:`` and in-page anchors;
* images are never loaded: they become a link (or a span) reading ``[image: ALT]``;
* table alignment uses classes, not ``style`` attributes (the CSP forbids inline styles);
* headings get ids ``md-<github-style-slug>`` and ``#slug`` links are rewritten to match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from exobrain.site.text import esc

__all__ = ["EXTERNAL_REL", "default_rewrite", "heading_slug", "render_markdown"]

EXTERNAL_REL = "nofollow noopener noreferrer"
LinkRewriter = Callable[[str], "str | None"]
_SAFE_SCHEME = re.compile(r"^(https?:|mailto:)", re.IGNORECASE)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_SLUG_DROP = re.compile(r"[^\w\- ]+")


def heading_slug(text: str) -> str:
    """GitHub-style heading slug: lower case, punctuation dropped, spaces to ``-``."""
    return _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")


def default_rewrite(href: str) -> str | None:
    """The rewriter used when none is given: no relative or ``skill:`` target is known."""
    return None


def is_external(href: str) -> bool:
    """True for links that leave the site (they get ``rel`` and are not link-checked)."""
    return bool(_SAFE_SCHEME.match(href))


def _headings(state: StateCore) -> dict[str, str]:
    ids: dict[str, str] = {}
    used: dict[str, int] = {}
    toks = state.tokens
    for i, tok in enumerate(toks):
        if tok.type != "heading_open" or i + 1 >= len(toks):
            continue
        text = "".join(
            c.content for c in (toks[i + 1].children or []) if c.type in ("text", "code_inline")
        )
        base = heading_slug(text) or "section"
        n = used.get(base, 0)
        used[base] = n + 1
        key = base if n == 0 else f"{base}-{n}"
        tok.attrSet("id", "md-" + key)
        ids[key] = "md-" + key
    return ids


def _rewrite_rule(state: StateCore) -> None:
    """Core rule run last: heading ids, link policy, table alignment classes."""
    ids = _headings(state)
    rewrite: LinkRewriter = state.env.get("rewrite_link") or default_rewrite
    for tok in state.tokens:
        if tok.type in ("th_open", "td_open"):
            style = str(tok.attrGet("style") or "")
            if tok.attrs:
                tok.attrs.pop("style", None)
            if style.startswith("text-align:"):
                tok.attrSet("class", "al-" + style.split(":", 1)[1])
        if tok.type != "inline" or not tok.children:
            continue
        stack: list[Token] = []
        for child in tok.children:
            if child.type == "link_open":
                _fix_link(child, rewrite, ids)
                stack.append(child)
            elif child.type == "link_close" and stack:
                child.tag = stack.pop().tag
            elif child.type == "image":
                src = str(child.attrGet("src") or "")
                child.meta["href"] = _target(src, rewrite, ids)


def _target(href: str, rewrite: LinkRewriter, ids: dict[str, str]) -> str | None:
    """The href to render for ``href``, or ``None`` for a dead link.

    http(s)/mailto are kept as they are; ``#slug`` must name a heading of the body;
    ``skill:`` references and relative paths go to ``rewrite``; any other scheme dies.
    """
    if _SAFE_SCHEME.match(href):
        return href
    if href.startswith("#"):
        return "#" + ids[href[1:]] if href[1:] in ids else None
    if _SCHEME.match(href) and not href.lower().startswith("skill:"):
        return None
    out = rewrite(href)
    if out is not None and _SCHEME.match(out) and not _SAFE_SCHEME.match(out):
        return None  # a rewriter may never hand back a dangerous scheme
    return out


def _fix_link(tok: Token, rewrite: LinkRewriter, ids: dict[str, str]) -> None:
    href = str(tok.attrGet("href") or "")
    target = _target(href, rewrite, ids)
    title = tok.attrGet("title")
    tok.attrs = {}
    if target is None:
        tok.tag = "span"
        tok.attrSet("class", "dead-link")
        tok.attrSet("title", f"not a link here: {href}"[:200])
        return
    tok.attrSet("href", target)
    if title:
        tok.attrSet("title", str(title))
    if is_external(target):
        tok.attrSet("rel", EXTERNAL_REL)


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tok = tokens[idx]
    alt = self.renderInlineAsText(tok.children or [], options, env) or "image"
    label = f"[image: {esc(alt)}]"
    href = tok.meta.get("href")
    if href is None:
        return f'<span class="dead-link">{label}</span>'
    rel = f' rel="{EXTERNAL_REL}"' if is_external(href) else ""
    return f'<a href="{esc(href)}"{rel}>{label}</a>'


def _make() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.core.ruler.push("exo_rewrite", _rewrite_rule)
    md.add_render_rule("image", _image)
    return md


_MD = _make()


def render_markdown(text: str, rewrite_link: LinkRewriter | None = None, **env: Any) -> str:
    """Render ``text`` to HTML under the safety model of this module."""
    html: str = _MD.render(text or "", {"rewrite_link": rewrite_link or default_rewrite, **env})
    return html
