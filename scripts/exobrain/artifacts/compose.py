"""``exobrain compose``: a skill made of skills (SPEC-013's ``source: composed``).

The new skill's body links each part's SKILL.md in the order given, its
``dependencies.skills`` and ``links.uses_skill`` name the parts by their home-qualified refs,
and it is registered like any skill (declared in its scope's registry, locked at 0.1.0). Its
parts come with it: wherever it is linked, connect-agent links them too
(:mod:`exobrain.dependencies`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from exobrain.artifacts.content import SCHEMA_VERSION
from exobrain.artifacts.frontmatter import dump_frontmatter, in_metadata
from exobrain.artifacts.promote import target_scope
from exobrain.artifacts.register import FIRST_VERSION, Registered, register
from exobrain.artifacts.specrules import DESCRIPTION_MAX, name_problems
from exobrain.errors import ExobrainError, UsageError
from exobrain.paths import shown, skill_dir
from exobrain.refs import canonical, parse_ref
from exobrain.registry.entries import Entry
from exobrain.skillmd import SKILL_FILE, one_line, quick_meta
from exobrain.util.staging import staged_folder
from exobrain.workspace import Workspace, find_declaration

#: The SPEC-013 fields a composed skill carries, kept in ``metadata`` so that the folder an
#: agent reads is a valid Agent Skills folder (the toolkit reads them back from there).
FOLDED = ("dependencies", "links")


def compose(
    ws: Workspace,
    name: str,
    parts: list[str],
    *,
    into: str | None = None,
    description: str | None = None,
    tier: str | None = None,
    owner: str | None = None,
    dry_run: bool = False,
) -> tuple[Registered, str]:
    """Write, declare and lock the composed skill ``name``; its ref and SKILL.md path."""
    problems = name_problems(name, name)
    if problems:
        raise UsageError("; ".join(problems))
    entries = [find_declaration(ws, parse_ref(text)) for text in parts]
    refs = [canonical(entry) for entry in entries]
    if len(set(refs)) < 2:
        raise UsageError(
            "a composed skill needs at least two different parts",
            hint="pass --from REF once per part: --from skill:a --from skill:b",
        )
    if len(set(refs)) != len(refs):
        raise UsageError(f"a part is named twice: {', '.join(refs)}")
    scope = target_scope(ws, into)
    folder = skill_dir(ws.root, scope, name)
    if folder.exists() or folder.is_symlink():
        raise UsageError(f"{shown(folder, ws.root)} already exists", hint="choose another name")
    text = description or (
        f"Combines {', '.join(e.name for e in entries)}: use it for a task that needs them "
        f"together, in that order."
    )
    if not 0 < len(text.strip()) <= DESCRIPTION_MAX:
        raise UsageError(f"--description must be 1 to {DESCRIPTION_MAX} characters")
    meta = {
        "name": name,
        "description": text,
        "version": FIRST_VERSION,
        "schema_version": SCHEMA_VERSION,
        "source": "composed",
        "dependencies": {"skills": refs},
        "links": {"uses_skill": list(refs)},  # a copy: one object twice would dump as an alias
    }
    skill_md = dump_frontmatter(
        in_metadata(meta, fold=FOLDED), _body(ws, name, folder, entries, refs)
    )
    rel = shown(folder / SKILL_FILE, ws.root)
    if dry_run:
        return Registered(f"skill:{name}@{scope}", FIRST_VERSION, "-"), rel
    with staged_folder(folder, root=ws.root) as staging:
        (staging / SKILL_FILE).write_text(skill_md, encoding="utf-8")
    try:
        return register(ws, folder, tier=tier, owner=owner), rel
    except (ExobrainError, OSError):
        shutil.rmtree(folder)  # made a moment ago; nothing else refers to it yet
        raise


def _body(ws: Workspace, name: str, folder: Path, entries: list[Entry], refs: list[str]) -> str:
    """The instructions: each part, linked, with its one-line description, in order."""
    lines = [
        f"# {name}",
        "",
        f"This skill is made of {len(entries)} skills. Use them together, in this order, and "
        f"read each part's SKILL.md when its step comes:",
        "",
    ]
    for number, (entry, ref) in enumerate(zip(entries, refs, strict=True), 1):
        if entry.source is not None:
            lines.append(f"{number}. `{ref}` — an external skill, installed beside this one.")
            continue
        path = skill_dir(ws.root, entry.scope, entry.name) / SKILL_FILE
        try:
            summary = one_line(str(quick_meta(path).get("description") or ""))
        except ExobrainError:
            summary = ""
        link = os.path.relpath(path, folder)
        lines.append(f"{number}. [`{ref}`]({link})" + (f" — {summary}" if summary else ""))
    lines += [
        "",
        "Every part is linked wherever this skill is linked (they are its "
        "`dependencies.skills`), so each is at hand under its own name.",
        "",
    ]
    return "\n".join(lines)
