"""Page skeleton and small HTML helpers shared by the page modules.

Every page carries the same Content-Security-Policy meta tag: scripts, styles and images
only from the site's own files (``'self'``), nothing inline, no network. Skill content is
escaped before it reaches a page; the CSP is the second lock on the door.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from exobrain.site.text import esc

__all__ = ["CSP", "badge", "depth_prefix", "fmt_bytes", "page", "table"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


def depth_prefix(depth: int) -> str:
    """The relative prefix from a page ``depth`` folders below the site root to the root."""
    return "../" * depth


def page(
    *,
    title: str,
    site_title: str,
    root: str,
    body: str,
    scripts: Sequence[str] = (),
    page_class: str = "",
) -> str:
    """A complete HTML document. ``root`` is the relative prefix to the site root and
    ``scripts`` are paths from the root (loaded with ``defer``, in order)."""
    tags = "".join(f'<script defer src="{esc(root + s)}"></script>' for s in scripts)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title>"
        f'<link rel="stylesheet" href="{root}assets/site.css">{tags}</head>'
        f'<body class="{esc(page_class)}"><header class="top"><nav>'
        f'<a class="brand" href="{root}index.html">{esc(site_title)}</a> '
        f'<a href="{root}index.html">Catalog</a> <a href="{root}scopes.html">Scopes</a>'
        f"</nav></header><main>{body}</main></body></html>\n"
    )


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    cls: str = "",
    row_ids: Sequence[str] | None = None,
    empty: str = "None.",
) -> str:
    """A table; cells are raw HTML (callers escape), headers are escaped here."""
    body = []
    for k, row in enumerate(rows):
        rid = f' id="{esc(row_ids[k])}"' if row_ids else ""
        body.append(f"<tr{rid}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    if not body:
        return f'<p class="muted">{esc(empty)}</p>'
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    return (
        f'<table class="{esc(cls)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def fmt_bytes(n: int) -> str:
    """``1234`` → ``1.2 KB``; exact count in bytes below 1 KB."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def badge(kind: str, value: str) -> str:
    """A small labelled pill, e.g. ``badge("lc", "active")`` → class ``lc lc-active``."""
    safe = "".join(c if c.isalnum() else "-" for c in value.lower())[:24]
    return f'<span class="{kind} {kind}-{esc(safe)}">{esc(value or "—")}</span>'
