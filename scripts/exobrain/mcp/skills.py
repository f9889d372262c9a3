"""MCP's Skills extension (SEP-2640, ``io.modelcontextprotocol/skills``) as plain data: the
entries ``skills/list`` and ``skills/get`` answer with and the bytes ``resources/read`` serves
for a ``skill://`` URI. No MCP in it, like :mod:`exobrain.mcp.tools`; the protocol layer
(:mod:`exobrain.mcp.server`) registers the two methods and advertises the extension.

Which skills: exactly what the connection shows the agent the server answers for, decided
once by :mod:`exobrain.reach` as every other surface asks it. A skill that reaches the agent
(``always``, ``optional``) is listed; an ``unlisted`` one — invocable by its name, on no
auto-loaded surface — is not listed but answers ``skills/get`` and its files are readable,
which is what the extension's "a skill absent from a partial listing is still retrievable by
URI" is for. Everything else (off, barred for this agent, superseded, someone's draft, outside
the chain, an external skill not installed here) is neither, and reads as unknown.

Each entry carries the SKILL.md frontmatter as it is written (parsed, then made JSON-safe the
one way every reader does: a date becomes its ISO text) and the manifest of every file of the
skill folder with its ``sha256:`` digest and size, from :func:`exobrain.util.dirhash.file_manifest`
— the walk and the digests ``exobrain lock`` pins, so a locked skill's manifest equals its lock
entry file for file. A link inside a skill is pinned (and served) as its target text.

URIs are ``skill://HOME/NAME/PATH``: the home's segments (``global``, ``groups/acme``,
``external/anthropic``) then the name, so two scopes may supply the same name and the last
segment before a file is always the skill's name, as the extension requires (a declared name
already keeps the Agent Skills naming rules: the registry schema holds it to them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.mcp.arguments import URI_MAX

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.search.artifact import Artifact
    from exobrain.search.live import Live

EXTENSION = "io.modelcontextprotocol/skills"
SCHEME = "skill://"
#: The extension's per-skill limits: what every conforming host accepts, so no more is served.
MAX_FILES, MAX_BYTES = 512, 16 << 20
#: The listing's freshness hint: none (an edit shows in the next answer, so a host asks again)
#: and private (the answer is this connection's chain, for this agent).
CACHE = {"ttlMs": 0, "cacheScope": "private"}
MARKDOWN = "text/markdown"


@dataclass(frozen=True)
class Served:
    """One skill the server answers for: its artifact, its ``skill://`` root (no trailing
    slash), whether ``skills/list`` names it, and its SKILL.md as messages name it."""

    artifact: Artifact
    root: str
    listed: bool
    where: str

    @property
    def uri(self) -> str:
        return f"{self.root}/SKILL.md"

    @property
    def folder(self) -> Path:
        assert self.artifact.folder is not None
        return Path(self.artifact.folder)


def root_of(home: str, name: str) -> str:
    """``skill://`` + the home's segments + the name, each percent-encoded."""
    from urllib.parse import quote

    return SCHEME + "/".join(quote(part, safe="") for part in [*home.split("/"), name])


def served(live: Live) -> list[Served]:
    """The installed skills of the chain that reach the agent or answer by name, by URI: from
    the connection's view the search tool uses, kept between calls and resolved again when
    something it was resolved from changed (:mod:`exobrain.search.live`)."""
    from exobrain.paths import shown
    from exobrain.reach import Reach

    searcher = live.searcher()
    view, root = live.view(searcher, False, set()), searcher.ws.root
    found = [
        Served(a, root_of(a.home, a.name), a.reach is Reach.LISTED, shown(a.path, root))
        for a in view.artifacts(("skill",))
        if a.path is not None and a.reach in (Reach.LISTED, Reach.BY_NAME)
    ]
    return sorted(found, key=lambda s: s.uri)


def entry(skill: Served) -> dict[str, Any]:
    """The extension's entry for ``skill``: its URI, its frontmatter as written and the
    complete manifest of its files. A skill the extension cannot carry (no frontmatter name
    equal to its name, no description, over the limits) is a domain error saying why."""
    from urllib.parse import quote

    from exobrain.errors import InputFileError
    from exobrain.skillmd import read_skill
    from exobrain.util.dirhash import file_manifest
    from exobrain.util.fileio import size_text
    from exobrain.util.jsonsafe import json_safe

    artifact, where = skill.artifact, skill.where
    assert artifact.path is not None
    frontmatter = json_safe(read_skill(artifact.path).raw)
    if frontmatter.get("name") != artifact.name:
        raise InputFileError(
            f"{where}: its frontmatter name {str(frontmatter.get('name'))[:64]!r} is not the "
            f"skill's name {artifact.name!r}, so the skills extension cannot serve it",
            hint=f"set name: {artifact.name} in the frontmatter (skills-validate checks it)",
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InputFileError(
            f"{where}: no description in the frontmatter, so the skills extension cannot serve it",
            hint="add description: with when to use the skill",
        )
    files = file_manifest(skill.folder)
    total = sum(size for _, size in files.values())
    if len(files) > MAX_FILES or total > MAX_BYTES:
        raise InputFileError(
            f"{where}: {len(files)} files, {size_text(total)}: over the skills extension's "
            f"limits of {MAX_FILES} files and {size_text(MAX_BYTES)} per skill",
            hint="move large or generated files out of the skill folder",
        )
    resources = [
        {"uri": f"{skill.root}/{quote(rel, safe='/')}", "digest": f"sha256:{digest}", "size": size}
        for rel, (digest, size) in sorted(files.items())
    ]
    return {
        "uri": skill.uri,
        "frontmatter": frontmatter,
        "resources": resources,
        "_meta": {"exobrain/ref": artifact.ref},
    }


def listing(live: Live, cursor: Any = None) -> tuple[dict[str, Any], list[str]]:
    """The ``skills/list`` result (one page: no cursor is ever handed out) and, for the
    server's log, why each listed skill that could not be carried was left out."""
    from exobrain.errors import ExobrainError, UsageError

    if cursor is not None:
        raise UsageError(
            "skills/list: unknown cursor; this server answers in one page and never gives a "
            "nextCursor",
            hint="call skills/list without params.cursor",
        )
    entries, skipped = [], []
    for skill in served(live):
        if skill.listed:
            try:
                entries.append(entry(skill))
            except ExobrainError as exc:
                skipped.append(str(exc))
    return {"skills": entries, **CACHE}, skipped


def get(live: Live, uri: Any) -> dict[str, Any]:
    """The ``skills/get`` result for the SKILL.md URI ``uri``."""
    from exobrain.errors import UsageError

    text = checked_uri(uri, "skills/get")
    for skill in served(live):
        if skill.uri == text:
            return {"skill": entry(skill), **CACHE}
    raise UsageError(
        f"no skill is served at {text[:URI_MAX]!r}",
        hint="skills/list names the skills this server serves (skill://HOME/NAME/SKILL.md)",
    )


def read(live: Live, uri: str) -> tuple[bytes, str]:
    """The bytes of the skill file ``uri`` names and their MIME type: only a file in its
    skill's manifest (never a path the walk did not list, so nothing outside the folder)."""
    from urllib.parse import unquote

    from exobrain.errors import UsageError
    from exobrain.util.dirhash import file_manifest
    from exobrain.util.fileio import read_bytes

    text = checked_uri(uri, "resources/read")
    owners = [s for s in served(live) if text.startswith(s.root + "/")]
    for skill in sorted(owners, key=lambda s: len(s.root), reverse=True):  # a nested one first
        rel = unquote(text[len(skill.root) + 1 :])
        if rel in file_manifest(skill.folder):
            path = skill.folder / rel
            if path.is_symlink():
                return os.fsencode(os.readlink(path)), "text/plain"
            data = read_bytes(path, limit=MAX_BYTES, what="a file of a skill")
            return data, MARKDOWN if rel == "SKILL.md" else _mime(rel, data)
    raise UsageError(
        f"no skill file is served at {text[:URI_MAX]!r}",
        hint="a skill's entry (skills/list, skills/get) lists the URIs of its files",
    )


def checked_uri(uri: Any, method: str) -> str:
    """``uri`` when it is a string within :data:`URI_MAX`; else the error saying what it needs."""
    from exobrain.errors import UsageError

    if not isinstance(uri, str) or not uri:
        raise UsageError(
            f"{method} needs params.uri, a string: the skill:// URI of a skill's SKILL.md",
            hint="skills/list gives each skill's uri",
        )
    if len(uri) > URI_MAX:
        raise UsageError(f"{method}: params.uri has {len(uri)} characters, over the {URI_MAX} cap")
    return uri


def _mime(rel: str, data: bytes) -> str:
    import mimetypes

    guessed = mimetypes.guess_type(rel, strict=False)[0]
    if guessed:
        return guessed
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"
