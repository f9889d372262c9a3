"""Finding the skills in a source folder: one skill, a bundle, or a Claude Code plugin
marketplace.

A plugin manifest (``.claude-plugin/marketplace.json`` or ``plugin.json``) is authoritative when
it lists skills; otherwise the folder is scanned for ``SKILL.md`` files (not below a skill
folder, not in version-control or cache folders, at most a few levels down).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.skillmd import SKILL_FILE
from exobrain.util.dirhash import SKIPPED_DIRS
from exobrain.util.fileio import load_json

MANIFESTS = (".claude-plugin/marketplace.json", ".claude-plugin/plugin.json")
#: Hidden folders that commonly hold skills and are worth scanning.
HIDDEN_SKILL_DIRS = frozenset({".claude", ".agents", ".codex", ".github", ".cursor", ".gemini"})
MAX_DEPTH = 6


@dataclass(frozen=True)
class FoundSkill:
    """A skill folder inside a source: ``rel`` is its POSIX path from the source root;
    ``plugin`` the manifest entry that lists it and ``release`` the top-level ``metadata`` of
    the marketplace file holding that entry (where K-Dense and anthropics/skills keep the
    bundle's version)."""

    folder: Path
    rel: str
    plugin: dict[str, Any] | None = None
    release: dict[str, Any] | None = None

    @property
    def folder_name(self) -> str:
        return PurePosixPath(self.rel).name if self.rel else self.folder.name

    def bundle_versions(self) -> list[tuple[str, Any]]:
        """(where, value) of the versions the bundle states for this skill, in order of
        precedence: the marketplace's ``metadata.version``, then the plugin's ``version``."""
        found = []
        if self.release and self.release.get("version") is not None:
            found.append(("the marketplace's metadata.version", self.release["version"]))
        if self.plugin and self.plugin.get("version") is not None:
            name = self.plugin.get("name")
            found.append((f"plugin {name!r} version", self.plugin["version"]))
        return found


@dataclass
class Bundle:
    root: Path
    skills: list[FoundSkill] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def has_folder(self, name: str) -> bool:
        return (self.root / name).is_dir()


def discover(root: Path) -> Bundle:
    """Every skill under ``root`` (``root`` itself when it holds a SKILL.md)."""
    bundle = Bundle(root)
    if (root / SKILL_FILE).is_file():
        bundle.skills.append(FoundSkill(root, "", None))
        return bundle
    listed: dict[str, FoundSkill] = {}
    for manifest in MANIFESTS:
        path = root / manifest
        if not path.is_file():
            continue
        bundle.manifests.append(manifest)
        try:
            data = load_json(path)
        except ExobrainError as exc:
            bundle.notes.append(f"{manifest}: unreadable ({exc}); scanning the folders instead")
            continue
        if not isinstance(data, dict):
            bundle.notes.append(f"{manifest}: not a JSON object; scanning the folders instead")
            continue
        marketplace = manifest.endswith("marketplace.json")
        plugins = data.get("plugins") if marketplace else [data]
        release = data.get("metadata") if marketplace else None
        release = release if isinstance(release, dict) else None
        for plugin in plugins if isinstance(plugins, list) else []:
            if isinstance(plugin, dict):
                for found in _plugin_skills(root, plugin, manifest, bundle.notes, release):
                    listed.setdefault(found.rel, found)
    bundle.skills = sorted(listed.values(), key=lambda s: s.rel) or _scan(root)
    return bundle


def _inside(root: Path, rel: str) -> str | None:
    """``rel`` as a normalised POSIX path inside ``root``, or None when it escapes."""
    parts = [p for p in PurePosixPath(rel.replace("\\", "/")).parts if p not in ("", ".")]
    if rel.startswith("/") or ".." in parts:
        return None
    return "/".join(parts)


def _plugin_skills(
    root: Path,
    plugin: dict[str, Any],
    manifest: str,
    notes: list[str],
    release: dict[str, Any] | None,
) -> list[FoundSkill]:
    source = plugin.get("source", "./")
    base = _inside(root, source) if isinstance(source, str) else None
    if base is None:
        notes.append(
            f"{manifest}: plugin {plugin.get('name')!r} comes from elsewhere "
            f"({source!r}); not imported"
        )
        return []
    listed = plugin.get("skills")
    if listed is None:  # a plugin's default: every folder under its skills/
        folder = root / base / "skills" if base else root / "skills"
        names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        listed = [f"skills/{n}" for n in names if (folder / n / SKILL_FILE).is_file()]
    found = []
    for item in [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else []:
        rel = _inside(root, f"{base}/{item}" if base and isinstance(item, str) else str(item))
        if rel is None or not (root / rel / SKILL_FILE).is_file():
            notes.append(
                f"{manifest}: plugin {plugin.get('name')!r} lists {item!r}, which is "
                f"not a skill folder inside the source"
            )
            continue
        found.append(FoundSkill(root / rel, rel, plugin, release))
    return found


def _scan(root: Path) -> list[FoundSkill]:
    found: list[FoundSkill] = []

    def visit(folder: Path, rel: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False) or entry.name in SKIPPED_DIRS:
                continue
            if entry.name.startswith(".") and entry.name not in HIDDEN_SKILL_DIRS:
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            if os.path.isfile(os.path.join(entry.path, SKILL_FILE)):
                found.append(FoundSkill(Path(entry.path), child, None))
            elif depth < MAX_DEPTH:
                visit(Path(entry.path), child, depth + 1)

    visit(root, "", 1)
    return found
