"""A link checker for a built site: every local ``href``/``src`` must name an existing
file inside the site, and every ``#fragment`` an element id in its target page.
External links (``http:``, ``https:``, ``mailto:``) are listed, not fetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["LinkReport", "check_site"]

_ATTRS = {"href", "src"}


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in _ATTRS and value is not None:
                self.refs.append((tag, value))


@dataclass
class LinkReport:
    pages: int = 0
    checked: int = 0
    external: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


def _parse(path: Path, cache: dict[Path, _Collect]) -> _Collect:
    if path not in cache:
        p = _Collect()
        p.feed(path.read_text(encoding="utf-8"))
        cache[path] = p
    return cache[path]


def check_site(root: Path) -> LinkReport:
    """Check every ``*.html`` under ``root``; see ``LinkReport.problems``."""
    root = root.resolve()
    report = LinkReport()
    cache: dict[Path, _Collect] = {}
    for page in sorted(root.rglob("*.html")):
        report.pages += 1
        for tag, ref in _parse(page, cache).refs:
            report.checked += 1
            parts = urlsplit(ref)
            where = f"{page.relative_to(root)}: <{tag}> {ref!r}"
            if parts.scheme in ("http", "https", "mailto"):
                report.external.add(ref)
                continue
            if parts.scheme or parts.netloc:
                report.problems.append(f"{where}: scheme not allowed in a static site")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if root not in target.parents and target != root:
                report.problems.append(f"{where}: leaves the site")
            elif not target.is_file():
                report.problems.append(f"{where}: no such file")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in _parse(target, cache).ids
            ):
                report.problems.append(f"{where}: no element with id {parts.fragment!r}")
    return report
