"""Semantic versions (https://semver.org), through the ``semver`` package, in one place.

A skill's ``version`` is a full semantic version; comparisons follow semver's precedence
(``1.0.0-rc.1`` < ``1.0.0`` < ``1.10.0``). Foreign bundles write looser things (``v1.2``,
``2``), which :func:`normalise` turns into ``MAJOR.MINOR.PATCH`` on import.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TypeGuard

import semver

from exobrain.errors import UsageError

BUMPS = ("major", "minor", "patch")
_LOOSE = re.compile(r"^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?\Z")


@lru_cache(maxsize=4096)
def parse(text: str) -> semver.Version:
    """The version ``text`` spells; anything else is a usage error that says how to write one."""
    try:
        return semver.Version.parse(str(text).strip())
    except (ValueError, TypeError):
        raise UsageError(
            f"version {text!r} is not a semantic version MAJOR.MINOR.PATCH",
            hint="write e.g. version: 1.0.0 in the SKILL.md frontmatter",
        ) from None


def is_version(text: object) -> TypeGuard[str]:
    """Whether ``text`` is a string holding a semantic version."""
    return isinstance(text, str) and semver.Version.is_valid(text)


def newer(a: str, b: str) -> bool:
    """Whether version ``a`` comes after version ``b``."""
    return parse(a) > parse(b)


def bump(version: str, part: str) -> str:
    """The next version: ``bump("1.2.3", "minor") == "1.3.0"`` (a pre-release is dropped)."""
    if part not in BUMPS:
        raise UsageError(f"--bump must be one of {', '.join(BUMPS)}")
    return str(parse(version).next_version(part=part))


def normalise(value: object) -> str | None:
    """``1.2`` or ``v1.2.3`` or ``2`` → a ``MAJOR.MINOR.PATCH`` string; a full semantic
    version stays as it is; None when ``value`` is not a version at all."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    if is_version(text):
        return text
    match = _LOOSE.match(text)
    return ".".join(str(int(part or 0)) for part in match.groups()) if match else None


def sort_key(text: str) -> tuple[int, int, int] | None:
    """The (major, minor, patch) of a version string for ordering mixed values, else None."""
    if not is_version(text):
        return None
    version = parse(text)
    return (version.major, version.minor, version.patch)
