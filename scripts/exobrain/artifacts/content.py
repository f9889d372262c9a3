"""The content rules of SPEC-013's skill type that the Agent Skills standard leaves out.

* ``skill-instructions`` (info) — the body of a SKILL.md is optional (the seed's "frontmatter —
  name, description — plus an optional body", as the Agent Skills reference validator
  accepts), but a skill without one teaches an agent nothing beyond its description, and an
  export to a format that requires instructions (SPEC-013's artifact, ``agentskills-io``)
  refuses it there;
* ``skill-description`` (warning) — a description under :data:`DESCRIPTION_MIN` characters is
  too short to be found by search or to trigger (the spec's ``minLength``);
* ``skill-files`` — ``files: [{path, sha256}]`` in the frontmatter, when present, must describe
  the folder: each listed file exists (error) with that digest (error), and each file of the
  folder is listed (warning). ``SKILL.md`` itself is never compared: its digest would have to
  contain itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.findings import ERROR, INFO, WARNING, Finding
from exobrain.skillmd import SKILL_FILE, SkillDoc
from exobrain.util.dirhash import file_digests

DESCRIPTION_MIN = 20
SCHEMA_VERSION = 1
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z")


def content_findings(rel: str, folder: Path, doc: SkillDoc) -> list[Finding]:
    """The findings about one parsed SKILL.md (``rel``: its path as shown) and its folder."""
    found: list[Finding] = []
    if not doc.body.strip():
        found.append(
            Finding(
                INFO,
                "skill-instructions",
                rel,
                "the body is empty: the description is all an agent gets; write what it "
                "should do, step by step (export --format agentskills-io needs a body)",
            )
        )
    description = doc.meta.get("description")
    if isinstance(description, str) and 0 < len(description.strip()) < DESCRIPTION_MIN:
        found.append(
            Finding(
                WARNING,
                "skill-description",
                rel,
                f"description is {len(description.strip())} characters (at least "
                f"{DESCRIPTION_MIN}): say what the skill does and when it should be used",
            )
        )
    if "files" in doc.meta:
        found.extend(
            Finding(level, "skill-files", rel, m)
            for level, m in files_problems(folder, doc.meta["files"])
        )
    return found


def files_problems(folder: Path, listed: Any) -> list[tuple[str, str]]:
    """(level, message) for each way ``files`` disagrees with the folder."""
    if not isinstance(listed, list):
        return [(ERROR, "files must be a list of {path, sha256}")]
    try:
        actual = file_digests(folder)
    except (ExobrainError, OSError):
        return []  # a link leading outside or a special file: reported as unsafe-file
    problems: list[tuple[str, str]] = []
    named: set[str] = set()
    for index, item in enumerate(listed):
        path = item.get("path") if isinstance(item, dict) else None
        digest = item.get("sha256") if isinstance(item, dict) else None
        if (
            not isinstance(path, str)
            or not path
            or (digest is not None and not isinstance(digest, str))
        ):
            problems.append((ERROR, f"files[{index}]: needs a path and, optionally, a sha256"))
            continue
        named.add(path)
        if path == SKILL_FILE:
            continue
        if path not in actual:
            problems.append((ERROR, f"files[{index}]: {path} is not in the skill folder"))
        elif digest is not None and not _SHA256.match(digest):
            problems.append((ERROR, f"files[{index}]: sha256 of {path} must be 64 hex digits"))
        elif digest is not None and digest != actual[path]:
            problems.append(
                (
                    ERROR,
                    f"files[{index}]: {path} has sha256 {actual[path]}, not the listed "
                    f"{digest}; update the entry",
                )
            )
    unlisted = sorted(set(actual) - named - {SKILL_FILE})
    if unlisted:
        problems.append((WARNING, f"files lists the folder's files but not {', '.join(unlisted)}"))
    return problems
