"""Skill references: ``skill:<name>`` (nearest in the chain) or ``skill:<name>@<home>``.

Homes are ``global``, a scope path (``groups/acme``), ``seed``, or ``external/<owner>``. The
canonical form written to files (ledgers, links) always carries the home, so it means the same
thing on every machine whatever that machine is connected to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from exobrain.errors import UsageError
from exobrain.model import EXTERNAL, Identity
from exobrain.registry.entries import Entry

_REF = re.compile(r"^(?:skill:)?(?P<name>[a-z0-9]+(?:-[a-z0-9]+)*)(?:@(?P<home>[^@\s]+))?\Z")


@dataclass(frozen=True)
class SkillRef:
    """A parsed reference; ``home`` None means "nearest in my chain"."""

    name: str
    home: str | None = None

    def __str__(self) -> str:
        return f"skill:{self.name}" + (f"@{self.home}" if self.home else "")


def parse_ref(text: str) -> SkillRef:
    """Parse ``skill:name[@home]`` (the ``skill:`` prefix may be left out)."""
    match = _REF.match(text.strip())
    if not match:
        raise UsageError(
            f"{text!r} is not a skill reference",
            hint="write skill:NAME or skill:NAME@HOME (e.g. skill:tidy@groups/acme)",
        )
    home = match.group("home")
    if home is not None and home != "global" and (".." in home.split("/") or "__" in home):
        raise UsageError(f"{text!r}: the home must not contain '..' or '__'")
    return SkillRef(match.group("name"), home)


def canonical(entry: Entry) -> str:
    """The home-qualified reference of a declaration."""
    return f"skill:{entry.name}@{entry_home(entry)}"


def entry_home(entry: Entry) -> str:
    """The home a reference names a declaration by (its identity's ``ref_home``)."""
    return entry.identity.ref_home


def ref_identity(ref: SkillRef, chain_declarations: Iterable[Entry]) -> Identity | None:
    """The identity a reference points at: its explicit home, else the deepest declaration of
    that name among ``chain_declarations`` (given shallow → deep); None when none matches."""
    if ref.home is not None:
        if ref.home.startswith(f"{EXTERNAL}/"):
            return Identity.external(ref.name, ref.home.split("/", 1)[1])
        return Identity(ref.home, ref.name)
    found = None
    for entry in chain_declarations:
        if entry.name == ref.name and not entry.is_override:
            found = entry.identity
    return found
