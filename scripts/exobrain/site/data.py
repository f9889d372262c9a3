"""The input of ``build_site``: a plain dict, its documented shape, and its normalisation.

:mod:`exobrain.site.gather` makes this dict from a repository; the benchmarks make it from
synthetic data. A plain dict lets both feed the builder, and lets the pages be tested
without a repository. Only ``skills[*].name`` and ``skills[*].home`` are required; every other
field has a default. ``normalise`` checks types, fills defaults and returns a ``Catalog``
whose skills are sorted by (name, home) and whose scopes include every scope mentioned
anywhere (homes, chains, declarations), so every link the site draws can resolve. A bad value
raises ``ValueError`` naming its path, e.g. ``skills[3].quality``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from exobrain.search.ranking import COLUMNS, PACKAGED, SECTION, SearchWeights, parse_search_weights
from exobrain.util.fileio import load_json

LinkType = Literal["supersedes", "derives_from", "uses_skill"]
LINK_TYPES: tuple[str, ...] = ("supersedes", "derives_from", "uses_skill")
#: How an incoming link of each type is named on the target's page.
INVERSE_LINK: dict[str, str] = {
    "supersedes": "superseded_by",
    "derives_from": "derived_into",
    "uses_skill": "used_by",
}
USAGE_DAYS = 90


class FileEntry(TypedDict):
    """One file of a skill folder as its page lists it (the pages show these facts, not the
    contents; the discovery index serves the files themselves, from ``folder``)."""

    path: str
    size: int
    sha256: str


class Declaration(TypedDict, total=False):
    """A declaration or override, in some scope's skills.json, that mentions the skill."""

    scope: str
    kind: str  # "declaration" | "override" (free text is shown as given)
    tier: str
    file: str
    note: str


class Link(TypedDict):
    """An outgoing link; ``target`` is ``NAME@HOME`` or a bare ``NAME``."""

    type: LinkType
    target: str


class SignalPoint(TypedDict, total=False):
    """One point of the signals timeline (any period: a day, a week…)."""

    date: str
    up: int
    down: int
    uses: int


class Signals(TypedDict, total=False):
    summary: dict[str, float | int | str]
    timeline: list[SignalPoint]


class Command(TypedDict):
    label: str
    command: str


class SkillIn(TypedDict):
    """A skill as given to ``build_site`` (see NOTES.md for each field)."""

    name: str
    home: str
    description: NotRequired[str]
    owner: NotRequired[str]
    tier: NotRequired[str]
    lifecycle: NotRequired[str]
    version: NotRequired[str]
    quality: NotRequired[float | None]
    usage: NotRequired[list[int]]
    tags: NotRequired[list[str]]
    personas: NotRequired[list[str]]
    triggers: NotRequired[list[str]]
    last_change: NotRequired[str]
    body: NotRequired[str]
    frontmatter: NotRequired[dict[str, Any]]
    files: NotRequired[list[FileEntry]]
    lock: NotRequired[dict[str, Any]]
    declarations: NotRequired[list[Declaration]]
    links: NotRequired[list[Link]]
    signals: NotRequired[Signals]
    commands: NotRequired[list[Command]]
    path: NotRequired[str]
    folder: NotRequired[str]


class ScopeIn(TypedDict):
    name: str
    kind: NotRequired[str]
    chain: NotRequired[list[str]]
    description: NotRequired[str]


class SiteData(TypedDict):
    site: NotRequired[dict[str, Any]]
    scopes: NotRequired[list[ScopeIn]]
    skills: list[SkillIn]
    search: NotRequired[dict[str, Any]]


#: Body tokens indexed per skill: the index is about half of the catalog's weight, and the
#: first few thousand words of a SKILL.md say what it is about.
BODY_TOKEN_CAP = 4000


def search_settings(weights: SearchWeights, body_token_cap: int = BODY_TOKEN_CAP) -> dict[str, Any]:
    """The ranking settings the shipped index carries, from ``exobrain search``'s own weights
    (the lexical half: per-column boosts, quality and lifecycle factors)."""
    return {
        "boosts": dict(zip(COLUMNS, weights.boosts, strict=True)),
        "k1": 1.2,  # SQLite FTS5's bm25() constants, which exobrain search uses
        "b": 0.75,
        "quality_weight": weights.quality_weight,
        "quality_neutral": weights.quality_neutral,
        "lifecycle": dict(weights.lifecycle),
        "body_token_cap": body_token_cap,
        # the relevance floor, lexical: the page searches every word of a skill, so a hit
        # must hold the share of the query's words exobrain search asks of name, triggers
        # and description (knowledge/exobrain/search.md, "Nothing fits")
        "floor": weights.floor.coverage,
    }


def default_search() -> dict[str, Any]:
    """The settings of the packaged weights file (used when the data names none)."""
    return search_settings(parse_search_weights(load_json(PACKAGED)[SECTION], PACKAGED))


@dataclass
class Skill:
    """A normalised skill; ``ref`` is ``NAME@HOME`` and unique in a catalog."""

    name: str
    home: str
    description: str = ""
    owner: str = ""
    tier: str = "optional"
    lifecycle: str = "active"
    version: str = ""
    quality: float | None = None
    usage: list[int] = field(default_factory=lambda: [0] * USAGE_DAYS)
    tags: list[str] = field(default_factory=list)
    personas: list[str] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)
    last_change: str = ""
    body: str = ""
    frontmatter: dict[str, Any] = field(default_factory=dict)
    files: list[FileEntry] = field(default_factory=list)
    lock: dict[str, Any] = field(default_factory=dict)
    declarations: list[Declaration] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    signals: Signals = field(default_factory=lambda: Signals())
    commands: list[Command] | None = None
    path: str = ""
    #: the skill's folder on disk, whose files the discovery index serves ("": not served)
    folder: str = ""

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.home}"


@dataclass
class Scope:
    name: str
    kind: str = ""
    chain: list[str] = field(default_factory=list)
    description: str = ""
    given: bool = True  # False when synthesised from a mention


@dataclass
class Catalog:
    title: str
    generated_at: str
    repo: str
    skills: list[Skill]
    scopes: dict[str, Scope]
    search: dict[str, Any]


def _str(v: Any, where: str, default: str = "") -> str:
    if v is None:
        return default
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if not isinstance(v, str):
        raise ValueError(f"{where}: expected a string, got {type(v).__name__}")
    return v


def _strs(v: Any, where: str) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError(f"{where}: expected a list of strings")
    return list(v)


def _list(v: Any, where: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ValueError(f"{where}: expected a list")
    return list(v)


def _skill(raw: Any, i: int) -> Skill:
    w = f"skills[{i}]"
    if not isinstance(raw, dict):
        raise ValueError(f"{w}: expected an object")
    for key in ("name", "home"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise ValueError(f"{w}.{key}: a non-empty string is required")
    q = raw.get("quality")
    if q is not None and (
        isinstance(q, bool) or not isinstance(q, (int, float)) or not 0.0 <= float(q) <= 1.0
    ):
        raise ValueError(f"{w}.quality: expected a number in [0, 1] or null")
    usage = [int(x) for x in _list(raw.get("usage"), f"{w}.usage")]
    if len(usage) > USAGE_DAYS:
        usage = usage[-USAGE_DAYS:]
    usage = [0] * (USAGE_DAYS - len(usage)) + usage
    if any(u < 0 for u in usage):
        raise ValueError(f"{w}.usage: counts must be >= 0")
    links = _list(raw.get("links"), f"{w}.links")
    for j, link in enumerate(links):
        if (
            not isinstance(link, dict)
            or link.get("type") not in LINK_TYPES
            or not isinstance(link.get("target"), str)
        ):
            raise ValueError(
                f"{w}.links[{j}]: expected {{type: {'|'.join(LINK_TYPES)}, target: str}}"
            )
    for j, f in enumerate(_list(raw.get("files"), f"{w}.files")):
        if not isinstance(f, dict) or not isinstance(f.get("path"), str):
            raise ValueError(f"{w}.files[{j}]: expected {{path, size, sha256}}")
    for key in ("frontmatter", "lock", "signals"):
        if raw.get(key) is not None and not isinstance(raw[key], dict):
            raise ValueError(f"{w}.{key}: expected an object")
    return Skill(
        name=raw["name"],
        home=raw["home"],
        description=_str(raw.get("description"), f"{w}.description"),
        owner=_str(raw.get("owner"), f"{w}.owner"),
        tier=_str(raw.get("tier"), f"{w}.tier", "optional"),
        lifecycle=_str(raw.get("lifecycle"), f"{w}.lifecycle", "active"),
        version=_str(raw.get("version"), f"{w}.version"),
        quality=None if q is None else float(q),
        usage=usage,
        tags=_strs(raw.get("tags"), f"{w}.tags"),
        personas=_strs(raw.get("personas"), f"{w}.personas"),
        triggers=_strs(raw.get("triggers"), f"{w}.triggers"),
        last_change=_str(raw.get("last_change"), f"{w}.last_change"),
        body=_str(raw.get("body"), f"{w}.body"),
        frontmatter=dict(raw.get("frontmatter") or {}),
        files=list(raw.get("files") or []),
        lock=dict(raw.get("lock") or {}),
        declarations=_list(raw.get("declarations"), f"{w}.declarations"),
        links=links,
        signals=dict(raw.get("signals") or {}),  # type: ignore[arg-type]
        commands=raw.get("commands"),
        path=_str(raw.get("path"), f"{w}.path"),
        folder=_str(raw.get("folder"), f"{w}.folder"),
    )


def normalise(data: SiteData | dict[str, Any]) -> Catalog:
    """Check ``data`` and return a ``Catalog`` (see the module docstring)."""
    if not isinstance(data, dict) or not isinstance(data.get("skills"), list):
        raise ValueError("data: expected an object with a 'skills' list")
    site = data.get("site") or {}
    skills = [_skill(raw, i) for i, raw in enumerate(data["skills"])]
    skills.sort(key=lambda s: (s.name, s.home))
    seen: set[str] = set()
    for s in skills:
        if s.ref in seen:
            raise ValueError(f"skills: {s.ref} appears twice")
        seen.add(s.ref)
    scopes: dict[str, Scope] = {}
    for i, raw in enumerate(_list(data.get("scopes"), "scopes")):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise ValueError(f"scopes[{i}]: expected an object with a name")
        chain = _strs(raw.get("chain"), f"scopes[{i}].chain") or [raw["name"]]
        if chain[-1] != raw["name"]:
            chain.append(raw["name"])
        scopes[raw["name"]] = Scope(
            raw["name"],
            _str(raw.get("kind"), f"scopes[{i}].kind"),
            chain,
            _str(raw.get("description"), f"scopes[{i}].description"),
        )
    for sc in list(scopes.values()):  # scopes named only in a chain
        for k, name in enumerate(sc.chain):
            scopes.setdefault(name, Scope(name, chain=sc.chain[: k + 1], given=False))
    mentioned = [s.home for s in skills] + [
        d.get("scope", "") for s in skills for d in s.declarations if isinstance(d, dict)
    ]
    for name in mentioned:
        if name:
            scopes.setdefault(name, Scope(name, chain=[name], given=False))
    defaults = default_search()
    search = {**defaults, **(data.get("search") or {})}
    search["boosts"] = {**defaults["boosts"], **search.get("boosts", {})}
    search["lifecycle"] = {**defaults["lifecycle"], **search.get("lifecycle", {})}
    return Catalog(
        title=_str(site.get("title"), "site.title", "Skills catalog"),
        generated_at=_str(
            site.get("generated_at"), "site.generated_at", dt.date.today().isoformat()
        ),
        repo=_str(site.get("repo"), "site.repo"),
        skills=skills,
        scopes=dict(sorted(scopes.items())),
        search=search,
    )
