"""The skills of Claude Code plugins installed from a marketplace, with Claude Code's records of
them (for ``exobrain adopt``).

Claude Code keeps, under its home (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), ``plugins/
installed_plugins.json`` (version 2: per ``<plugin>@<marketplace>`` a list of installs, each
with its ``scope`` — user, project or local, the last two with a ``projectPath`` —, its
``installPath`` in the plugin cache and the ``gitCommitSha`` it was installed at) and
``plugins/known_marketplaces.json`` (per marketplace its ``source``: ``github`` with a
``repo``, ``git`` with a ``url``, or a local ``directory``, and the ``installLocation`` of its
checkout). The checkout's ``.claude-plugin/marketplace.json`` says where each plugin lives in
the marketplace's repository; the installed plugin's skills are found with the importer's own
bundle reader (:func:`exobrain.interop.formats.bundle.discover`).

The records are untrusted: both files are size-capped and checked entry by entry, and the paths
they give must lie inside Claude Code's ``plugins/`` folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from exobrain.agents import get_agent
from exobrain.errors import ExobrainError
from exobrain.interop.adopt_records import LOCK_LIMIT, Installed, Origin, shown_path
from exobrain.interop.formats.bundle import discover
from exobrain.util.fileio import parse_json, read_text

CLAUDE_CODE = "Claude Code plugins"
INSTALLED, MARKETPLACES = "installed_plugins.json", "known_marketplaces.json"
MAX_PLUGINS = 1000
_SHA = re.compile(r"^[0-9a-f]{40}\Z")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+\Z")


def _load(path: Path) -> Any:
    return parse_json(read_text(path, limit=LOCK_LIMIT, what="a plugin record"), path)


def _inside(text: Any, base: Path) -> Path:
    if not isinstance(text, str) or not text:
        raise ValueError("a path that is not text")
    path = Path(text).expanduser().resolve()
    if not path.is_relative_to(base.resolve()):
        raise ValueError(f"{text} lies outside {base}")
    return path


def _marketplace(name: str, known: Any, plugins: Path) -> tuple[str | None, Path]:
    """(the marketplace repository's git URL or None, its checkout) from its record."""
    entry = known.get(name) if isinstance(known, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("source"), dict):
        raise ValueError(f"{MARKETPLACES} has no entry with a source for {name!r}")
    source = entry["source"]
    kind, repo = source.get("source"), None
    if kind == "github" and isinstance(source.get("repo"), str) and _REPO.match(source["repo"]):
        repo = f"https://github.com/{source['repo']}"
    elif kind == "git" and isinstance(source.get("url"), str) and len(source["url"]) < 2048:
        repo = source["url"]
    elif kind not in ("directory", "file"):
        raise ValueError(f"{MARKETPLACES}: {name}: an unknown source {kind!r}")
    return repo, _inside(entry.get("installLocation"), plugins)


def _plugin_base(checkout: Path, plugin: str) -> tuple[str | None, str]:
    """(a repository of its own or None, the plugin's folder in its repository) from the
    marketplace's manifest."""
    data = _load(checkout / ".claude-plugin" / "marketplace.json")
    listed = data.get("plugins") if isinstance(data, dict) else None
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict) or entry.get("name") != plugin:
            continue
        source = entry.get("source", "./")
        if isinstance(source, dict):
            repo = source.get("repo")
            if source.get("source") == "github" and isinstance(repo, str) and _REPO.match(repo):
                return f"https://github.com/{repo}", ""
            raise ValueError(
                f"marketplace.json: plugin {plugin!r} comes from a source other than GitHub"
            )
        parts = [p for p in str(source).split("/") if p not in ("", ".")]
        if str(source).startswith("/") or ".." in parts:
            raise ValueError(f"marketplace.json: plugin {plugin!r} has a source outside it")
        return None, "/".join(parts)
    raise ValueError(f"marketplace.json of its marketplace does not list {plugin!r}")


def _wanted(install: Any, root: Path, user: bool) -> bool:
    if not isinstance(install, dict):
        return False
    scope = install.get("scope")
    if scope == "user":
        return user
    where = install.get("projectPath")
    return isinstance(where, str) and Path(where).expanduser().resolve() == root.resolve()


def plugin_skills(root: Path, *, user: bool) -> list[Installed]:
    """The skills of the plugins Claude Code installed for this project (and for the user with
    ``user``), each with its origin or the problem with its record."""
    home = get_agent("claude").home()
    plugins = home / "plugins"
    if not (plugins / INSTALLED).is_file():
        return []
    shown = shown_path(plugins / INSTALLED, root)
    try:
        installed = _load(plugins / INSTALLED)
        known = _load(plugins / MARKETPLACES) if (plugins / MARKETPLACES).is_file() else {}
    except ExobrainError as exc:
        return [Installed("(claude plugins)", plugins, shown, ["claude"], problem=exc.message)]
    table = installed.get("plugins") if isinstance(installed, dict) else None
    if not isinstance(table, dict) or installed.get("version") != 2 or len(table) > MAX_PLUGINS:
        why = f'{shown}: expected version 2 with a "plugins" object of at most {MAX_PLUGINS}'
        return [Installed("(claude plugins)", plugins, shown, ["claude"], problem=why)]
    found: list[Installed] = []
    for key, installs in table.items():
        for install in installs if isinstance(installs, list) else [installs]:
            if _wanted(install, root, user):
                found += _skills_of(str(key), install, known, plugins, shown)
    return found


def _skills_of(
    key: str, install: dict[str, Any], known: Any, plugins: Path, shown: str
) -> list[Installed]:
    plugin, _, market = key.partition("@")
    where = f"{shown}: plugins.{key[:80]}"
    try:
        if not plugin or not market:
            raise ValueError("the key is not <plugin>@<marketplace>")
        folder = _inside(install.get("installPath"), plugins)
        commit = install.get("gitCommitSha")
        if not isinstance(commit, str) or not _SHA.match(commit):
            commit = None
        repo, checkout = _marketplace(market, known, plugins)
        own, base = _plugin_base(checkout, plugin)
    except (ValueError, ExobrainError) as exc:
        why = exc.message if isinstance(exc, ExobrainError) else str(exc)
        return [Installed(plugin or key[:80], plugins, where, ["claude"], problem=why)]
    repo = own or repo
    items = []
    for skill in discover(folder).skills:
        path = "/".join(p for p in (base, skill.rel) if p) or "."
        origin = Origin(CLAUDE_CODE, where, "git" if repo else "directory", repo or market)
        if repo:
            origin = Origin(
                CLAUDE_CODE, where, "git", repo, repo, path, commit, pinned=commit is not None
            )
        items.append(
            Installed(
                skill.folder_name,
                skill.folder,
                f"{plugin}@{market}: {skill.rel or '.'}",
                ["claude"],
                origin,
            )
        )
    return items
