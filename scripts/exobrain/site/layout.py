"""Where every page lives and how references between pages resolve.

Layout of a built site (all links between pages are relative)::

    index.html                  catalog (depth 0)
    scopes.html                 list of scopes (depth 0)
    search-index.js             the search index (a global, see search_index.py)
    assets/…                    CSS and JS copied from the prototype's assets/
    scopes/<slug(scope)>.html   one page per scope (depth 1)
    skills/<slug(home)>/<slug(name)>.html   one page per skill (depth 2)
    .well-known/agent-skills/   the discovery index and the skills it serves (discovery.py)
    .exobrain-site              the manifest of the files the build wrote (manifest.py)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from exobrain.site.data import INVERSE_LINK, Catalog, Declaration, Skill
from exobrain.site.text import slug

__all__ = ["ASSET_FILES", "SiteModel", "scope_path", "skill_path"]

#: The files of ``assets/``, copied into every build.
ASSET_FILES = ("site.css", "search.js", "catalog.js", "page.js")


def skill_path(s: Skill) -> str:
    """A skill page's path from the site root."""
    return f"skills/{slug(s.home)}/{slug(s.name)}.html"


def scope_path(name: str) -> str:
    """A scope page's path from the site root."""
    return f"scopes/{slug(name)}.html"


@dataclass
class SiteModel:
    """The catalog plus the derived maps every page needs."""

    cat: Catalog
    by_ref: dict[str, Skill] = field(default_factory=dict)
    by_name: dict[str, list[Skill]] = field(default_factory=lambda: defaultdict(list))
    incoming: dict[str, list[tuple[str, Skill]]] = field(default_factory=lambda: defaultdict(list))
    homed: dict[str, list[Skill]] = field(default_factory=lambda: defaultdict(list))
    declared_in: dict[str, list[tuple[Skill, Declaration]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    children: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    #: ref → the refs of the other skills whose files are the same (paths and digests)
    same_content: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, cat: Catalog) -> SiteModel:
        """Index ``cat``; raises ``ValueError`` if two pages would share a path."""
        m = cls(cat)
        paths: dict[str, str] = {}
        for s in cat.skills:
            m.by_ref[s.ref] = s
            m.by_name[s.name].append(s)
            m.homed[s.home].append(s)
            for d in s.declarations:
                if isinstance(d, dict) and d.get("scope"):
                    m.declared_in[str(d["scope"])].append((s, d))
            p = skill_path(s)
            if p in paths:
                raise ValueError(f"skills {paths[p]} and {s.ref} map to the same page {p}")
            paths[p] = s.ref
        for s in cat.skills:
            for link in s.links:
                target = m.resolve(link["target"], s)
                if target is not None:
                    m.incoming[target.ref].append((INVERSE_LINK[link["type"]], s))
        for name, sc in cat.scopes.items():
            if len(sc.chain) >= 2:
                m.children[sc.chain[-2]].append(name)
        groups: dict[tuple[tuple[str, str], ...], list[str]] = defaultdict(list)
        for s in cat.skills:
            files = tuple(sorted((str(f["path"]), str(f.get("sha256", ""))) for f in s.files))
            if files and all(digest for _, digest in files):
                groups[files].append(s.ref)
        for refs in groups.values():
            for ref in refs if len(refs) > 1 else ():
                m.same_content[ref] = [r for r in refs if r != ref]
        return m

    def superseded_by(self, s: Skill) -> Skill | None:
        """The skill whose links supersede ``s`` (None: none does)."""
        found = [other for kind, other in self.incoming[s.ref] if kind == "superseded_by"]
        return found[0] if found else None

    def resolve(self, target: str, origin: Skill | None = None) -> Skill | None:
        """``NAME@HOME`` exactly, or a bare ``NAME``: the only skill so named, else the one
        whose home is nearest to ``origin``'s home in its scope chain; ``None`` if unknown
        or ambiguous."""
        target = target.strip()
        target = target.removeprefix("skill:")
        if "@" in target:
            return self.by_ref.get(target)
        found = self.by_name.get(target, [])
        if len(found) == 1:
            return found[0]
        if found and origin is not None:
            scope = self.cat.scopes.get(origin.home)
            chain = scope.chain if scope else [origin.home]
            for home in reversed(chain):
                for s in found:
                    if s.home == home:
                        return s
        return None
