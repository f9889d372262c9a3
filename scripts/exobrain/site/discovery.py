"""The discovery index: ``.well-known/agent-skills/index.json``, for agents rather than people.

The Agent Skills community's discovery draft ("Agent Skills Discovery via Well-Known URIs",
version 0.2.0, github.com/cloudflare/agent-skills-discovery-rfc) lets a client find what a
site publishes with one request: an index whose ``$schema`` names the draft's version, and per
skill its ``name``, ``type``, ``description``, ``url`` and ``digest`` (``sha256:`` and the hex
of the artifact's bytes). A skill that is only its ``SKILL.md`` is served as that file
(``type: "skill-md"``); one with more files as a zip of its folder (``type: "archive"``), the
folder's files at the archive's root.

The digests are the lock's: a ``SKILL.md`` is hashed by the same function ``exobrain lock``
hashes each file with (:func:`~exobrain.util.dirhash.file_digest`), so a locked skill's entry
carries exactly the sha256 its ``skills.lock.json`` records for its ``SKILL.md``; an archive
holds exactly the files the lock lists (the dirhash junk rules, links as links), each with
the lock's digest, and the entry's digest is that of the archive's bytes, as the draft says.
Archives are reproducible (:func:`~exobrain.util.archive.write_zip`), so an unchanged skill
keeps its digest from build to build and clients can skip it.

A skill the draft cannot describe is left out, with the reason: a name that is not an Agent
Skills name, a name published from two homes (the index names a skill once), a missing or
over-long description, no ``SKILL.md`` in its folder, or a folder that cannot be shipped (a
link leading out of it, a special file).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError, InputFileError
from exobrain.site.data import Catalog, Skill
from exobrain.util.archive import Member, write_zip
from exobrain.util.dirhash import file_digest
from exobrain.util.treecopy import copy_tree, iter_tree

#: The draft's version, as its index names it.
SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
#: Where the index and the artifacts live in the site.
FOLDER = ".well-known/agent-skills"
INDEX = f"{FOLDER}/index.json"
#: The Agent Skills rules for a name and a description, which the draft adopts.
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
NAME_MAX = 64
DESCRIPTION_MAX = 1024
SKILL_FILE = "SKILL.md"


@dataclass
class Discovery:
    """What the index lists (its entries, by name) and what it left out (ref → why)."""

    entries: list[dict[str, str]] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    files: list[tuple[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "index": INDEX,
            "skills": [e["name"] for e in self.entries],
            "left_out": [{"skill": ref, "why": why} for ref, why in self.left_out.items()],
        }


def _why_not(s: Skill, homes: Counter[str]) -> str | None:
    if not s.folder:
        return "its folder is not in this checkout"
    if len(s.name) > NAME_MAX or not NAME.fullmatch(s.name):
        return "its name is not an Agent Skills name (1-64 of a-z, 0-9 and single hyphens)"
    if homes[s.name] > 1:
        return f"{homes[s.name]} published skills share its name; the index names a skill once"
    if not s.description.strip():
        return "it has no description"
    if len(s.description) > DESCRIPTION_MAX:
        return f"its description is over {DESCRIPTION_MAX} characters"
    return None


def write_discovery(cat: Catalog, stage: Path) -> Discovery:
    """Write the index and each listed skill's artifact into the site folder ``stage``."""
    found = Discovery()
    (stage / FOLDER).mkdir(parents=True)
    homes = Counter(s.name for s in cat.skills)
    for s in cat.skills:
        why = _why_not(s, homes)
        if why is None:
            try:
                entry, written = _publish(s, stage)
            except ExobrainError as exc:
                why = f"its folder cannot be shipped ({exc.message})"
            except OSError as exc:  # a folder in it this user may not read
                why = f"its folder cannot be shipped ({exc.strerror or exc})"
            else:
                found.entries.append(entry)
                found.files.append(written)
        if why is not None:
            found.left_out[s.ref] = why
    index = {"$schema": SCHEMA, "skills": found.entries}
    data = (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    with open(stage / INDEX, "xb") as handle:
        handle.write(data)
    found.files.append((INDEX, file_digest(stage / INDEX)))
    return found


def _publish(s: Skill, stage: Path) -> tuple[dict[str, str], tuple[str, str]]:
    """Serve one skill's artifact; its index entry and (path, sha256) in the site."""
    folder = Path(s.folder)
    tree = list(iter_tree(folder))  # refuses links leading out and special files
    kinds = {rel: link for rel, _, link in tree}
    if SKILL_FILE not in kinds:
        raise InputFileError(f"{folder}: no {SKILL_FILE}")
    if kinds[SKILL_FILE] is not None:
        raise InputFileError(f"{folder / SKILL_FILE}: a symbolic link, not the file")
    if len(tree) == 1:
        rel = f"{s.name}/{SKILL_FILE}"
        (stage / FOLDER / s.name).mkdir()
        _, served = copy_tree(folder, stage / FOLDER / s.name)
        kind, digest = "skill-md", served[SKILL_FILE]
    else:
        rel = f"{s.name}.zip"
        members: list[Member] = [(name, path, None, link) for name, path, link in tree]
        write_zip(stage / FOLDER / rel, members)
        kind, digest = "archive", file_digest(stage / FOLDER / rel)
    entry = {
        "name": s.name,
        "type": kind,
        "description": s.description,
        "url": rel,  # relative to the index: the site works at any path of any host
        "digest": f"sha256:{digest}",
    }
    return entry, (f"{FOLDER}/{rel}", digest)
