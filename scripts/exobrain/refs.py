"""Skill references: ``skill:<name>`` (nearest in the chain) or ``skill:<name>@<home>``.

Homes are ``global``, a scope path (``groups/acme``), ``seed``, or ``external/<owner>``. The
canonical form written to files (ledgers, links) always carries the home, so it means the same
thing on every machine whatever that machine is connected to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from exobrain.errors import UsageError
from exobrain.registry import EXTERNAL, Entry
from exobrain.scopes import scope_at

if TYPE_CHECKING:
    from exobrain.workspace import Workspace

_REF = re.compile(r"^(?:skill:)?(?P<name>[a-z0-9]+(?:-[a-z0-9]+)*)(?:@(?P<home>[^@\s]+))?$")


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
        raise UsageError(f"{text!r} is not a skill reference",
                         hint="write skill:NAME or skill:NAME@HOME (e.g. skill:tidy@groups/acme)")
    home = match.group("home")
    if home is not None and home != "global" and (".." in home.split("/") or "__" in home):
        raise UsageError(f"{text!r}: the home must not contain '..' or '__'")
    return SkillRef(match.group("name"), home)


def canonical(entry: Entry) -> str:
    """The home-qualified reference of a declaration."""
    home = f"{EXTERNAL}/{entry.owner}" if entry.source else entry.scope
    return f"skill:{entry.name}@{home}"


def entry_home(entry: Entry) -> str:
    return f"{EXTERNAL}/{entry.owner}" if entry.source else entry.scope


def find_declaration(ws: Workspace, ref: SkillRef) -> Entry:
    """The declaration a reference names: an explicit home, else the deepest in my chain,
    else the only one in the repository. Unknown or ambiguous → a usage error that lists the
    candidates."""
    if ref.home is not None:
        # an in-tree home names its scope: read that one registry, not the whole repository
        in_tree = not ref.home.startswith(f"{EXTERNAL}/")
        if in_tree and scope_at(ws.root, ref.home, ws.config) is None:
            raise UsageError(f"no skill {ref.name!r} is declared at {ref.home} (not a scope)",
                             hint="skills-status --all lists every declared skill and its scope")
        for registry in ([ws.registry(ref.home)] if in_tree else ws.all_registries()):
            for entry in registry.entries:
                if not entry.is_override and entry.name == ref.name and entry_home(entry) == ref.home:
                    return entry
        raise UsageError(f"no skill {ref.name!r} is declared at {ref.home}",
                         hint="skills-status --all lists every declared skill and its scope")
    chain = set(ws.chain.paths)
    in_chain = [e for e in ws.chain_entries() if not e.is_override and e.name == ref.name]
    if in_chain:
        return in_chain[-1]
    found = [e for r in ws.all_registries() for e in r.entries
             if not e.is_override and e.name == ref.name and e.scope not in chain]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no skill named {ref.name!r} is declared in this repository",
                         hint="skills-status --all lists every declared skill")
    options = ", ".join(canonical(e) for e in found)
    raise UsageError(f"{ref.name!r} is declared in several scopes: {options}",
                     hint="name one with skill:NAME@HOME")


def ref_identity(ref: SkillRef, chain_declarations: Iterable[Entry]) -> tuple[str, ...] | None:
    """The identity a reference points at: its explicit home, else the deepest declaration of
    that name among ``chain_declarations`` (given shallow → deep); None when none matches."""
    if ref.home is not None:
        if ref.home.startswith(f"{EXTERNAL}/"):
            return (EXTERNAL, ref.name, ref.home.split("/", 1)[1])
        return (ref.home, ref.name)
    found = None
    for entry in chain_declarations:
        if entry.name == ref.name and not entry.is_override:
            found = entry.identity
    return found
