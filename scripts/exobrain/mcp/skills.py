"""MCP's Skills extension (SEP-2640, ``io.modelcontextprotocol/skills``) as plain data: the
entries ``skills/list`` and ``skills/get`` answer with and the bytes ``resources/read`` serves
for a ``skill://`` URI. No MCP in it, like :mod:`exobrain.mcp.tools`; the protocol layer
(:mod:`exobrain.mcp.server`) registers the two methods and advertises the extension.

Which skills: the one view of :mod:`exobrain.mcp.view`, as every other method of the server
answers. ``skills/list`` is read unasked, so it names only the skills that reach the agent
(``always``, ``optional``; :mod:`exobrain.mcp.listing` answers it, filtered by a query when
one is given); ``skills/get`` and the ``skill://`` files answer for every skill the server
shows on request — an ``unlisted`` one, invocable by its name, first among them, which is
what the extension's "a skill absent from a partial listing is still retrievable by URI" is
for — exactly the skills ``get`` reads by reference and ``exobrain://`` by URI, the chain's
first, then the shared scopes'. Each entry's ``_meta`` says the skill's reach.

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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

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
#: The extension's settings in the capabilities: no ``directoryRead`` (every entry lists every
#: file), and ``filtering``: ``skills/list`` takes a ``query`` (:mod:`exobrain.mcp.listing`).
SETTINGS = {"filtering": True}
MARKDOWN = "text/markdown"


class Served(NamedTuple):
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


def served(live: Live, *, everywhere: bool = False) -> list[Served]:
    """The installed skills the server answers for, by URI (:mod:`exobrain.mcp.view`): those
    of the connection's chain, or with ``everywhere`` those of every shared scope too. From
    the view the search tool uses, kept between calls and resolved again when something it
    was resolved from changed (:mod:`exobrain.search.live`)."""
    from exobrain.mcp.view import hidden, listed
    from exobrain.paths import shown

    searcher = live.searcher()
    ws = searcher.ws
    view = live.view(searcher, everywhere, set())
    found = [
        Served(a, root_of(a.home, a.name), listed(a), shown(a.path, ws.root))
        for a in view.artifacts(("skill",))
        if a.path is not None and not hidden(ws, a)
    ]
    return sorted(found, key=lambda s: s.uri)


def entry(skill: Served, root: Path) -> dict[str, Any]:
    """The extension's entry for ``skill`` (of the exobrain at ``root``): its URI, its
    frontmatter as written and the complete manifest of its files. A skill the extension
    cannot carry (no frontmatter name equal to its name, no description, over the limits, a
    folder that leads outside the repository) is a domain error saying why; the limits are
    held before any file is hashed."""
    from urllib.parse import quote

    from exobrain.errors import InputFileError
    from exobrain.skillmd import read_skill
    from exobrain.util.dirhash import file_manifest
    from exobrain.util.jsonsafe import json_safe

    artifact, where = skill.artifact, skill.where
    assert artifact.path is not None
    confined(skill, root)
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
    files = file_manifest(skill.folder, within=lambda count, total: _limits(where, count, total))
    resources = [
        {"uri": f"{skill.root}/{quote(rel, safe='/')}", "digest": f"sha256:{digest}", "size": size}
        for rel, (digest, size) in sorted(files.items())
    ]
    return {
        "uri": skill.uri,
        "frontmatter": frontmatter,
        "resources": resources,
        "_meta": {"exobrain/ref": artifact.ref, "exobrain/reach": artifact.reach.value},
    }


def _limits(where: str, count: int, total: int) -> None:
    """Refuse a skill over the extension's per-skill limits."""
    from exobrain.errors import InputFileError
    from exobrain.util.fileio import size_text

    if count > MAX_FILES or total > MAX_BYTES:
        raise InputFileError(
            f"{where}: {count} files, {size_text(total)}: over the skills extension's "
            f"limits of {MAX_FILES} files and {size_text(MAX_BYTES)} per skill",
            hint="move large or generated files out of the skill folder",
        )


def confined(skill: Served, root: Path) -> None:
    """Refuse a skill of the repository whose folder leads outside it through a link (what
    skills-validate reports as an error): nothing outside the repository is served."""
    from exobrain.errors import InputFileError
    from exobrain.util.confine import leaves

    folder = skill.folder
    if folder.is_relative_to(root) and leaves(root, folder):
        target = f" to {os.readlink(folder)!r}" if folder.is_symlink() else ""
        raise InputFileError(
            f"{skill.where}: the skill folder is a link{target}, outside the repository, so "
            "the skills extension does not serve it",
            hint="replace the link with the folder itself (skills-validate reports it)",
        )


def find(live: Live, match: Callable[[Served], bool]) -> Served | None:
    """The served skill ``match`` picks: the chain's first, then the shared scopes' (a
    nested skill before the one holding it)."""
    for everywhere in (False, True):
        found = [s for s in served(live, everywhere=everywhere) if match(s)]
        if found:
            return max(found, key=lambda s: len(s.root))
    return None


def get(live: Live, uri: Any) -> dict[str, Any]:
    """The ``skills/get`` result for the SKILL.md URI ``uri``."""
    from exobrain.errors import UsageError

    text = checked_uri(uri, "skills/get")
    skill = find(live, lambda s: s.uri == text)
    if skill is None:
        raise UsageError(
            f"no skill is served at {text[:URI_MAX]!r}",
            hint="skills/list names the skills this server serves (skill://HOME/NAME/SKILL.md)",
        )
    return {"skill": entry(skill, live.workspace().root), **CACHE}


def read(live: Live, uri: str) -> tuple[bytes, str]:
    """The bytes of the skill file ``uri`` names and their MIME type: only a file in its
    skill's manifest (never a path the walk did not list, so nothing outside the folder)."""
    from urllib.parse import unquote

    from exobrain.errors import UsageError
    from exobrain.util.dirhash import file_entries
    from exobrain.util.fileio import read_bytes

    text = checked_uri(uri, "resources/read")
    skill = find(live, lambda s: text.startswith(s.root + "/"))
    if skill is not None:
        confined(skill, live.workspace().root)
        rel = unquote(text[len(skill.root) + 1 :])
        if rel in file_entries(skill.folder):
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
