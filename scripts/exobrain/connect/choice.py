"""Which scopes to connect: explicit flags, else the stored ``.exobrain.json``, else a wizard
(only on a terminal), else guest.

Flags name scopes; one that does not exist is said out loud with the command that makes it
(``exobrain scope new PATH``), and when nothing at all matches nothing is connected. On a
terminal, connect-agent offers to create a missing person, host (named with ``--host``) or
group scope instead, and the wizard offers the same for the person, host and groups it asks
about; a scope is created only after a yes, when the connect is applied
(:mod:`exobrain.connect.newscope`). Both talk through injected ``prompt``/``confirm``/``echo``
callables so they can be tested without a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.connect.newscope import missing_scope_note, new_scope
from exobrain.errors import OperationFailed, UsageError
from exobrain.scan import scan_scopes
from exobrain.scopes import (
    SCOPE_FLAG,
    Connection,
    Scope,
    ScopeConfig,
    check_scope_path,
    scope_at,
)

GENERIC_LOGINS = frozenset(
    {
        "root",
        "admin",
        "administrator",
        "ubuntu",
        "debian",
        "centos",
        "ec2-user",
        "pi",
        "user",
        "vagrant",
        "guest",
        "test",
        "fedora",
        "azureuser",
        "opc",
        "docker",
    }
)
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")


@dataclass(frozen=True)
class Flags:
    """The connection flags of ``connect-agent``."""

    person: str | None = None
    host: str | None = None
    groups: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    guest: bool = False

    @property
    def given(self) -> bool:
        return bool(self.person or self.host or self.groups or self.scopes or self.guest)


@dataclass
class Choice:
    """The connection to use and where it came from (flags, stored, wizard or guest)."""

    source: str
    connected_scopes: list[str]
    person: str | None = None
    notes: list[str] = field(default_factory=list)
    create: list[str] = field(default_factory=list)  # scope folders the wizard will create


def short_hostname() -> str:
    import socket  # only when a host name is needed

    return socket.gethostname().split(".", 1)[0].lower()


def folder_for(config: ScopeConfig, kind: str) -> str:
    """The collection folder holding scopes of ``kind`` (``people`` for person, …)."""
    for folder, found in config.collections:
        if found == kind:
            return folder
    raise UsageError(
        f"scopes.json has no collection of type {kind!r}",
        hint=f'add {{"folder": …, "type": "{kind}"}} to scopes.json',
    )


def _plain_id(value: str, what: str) -> str:
    text = value.strip()
    if not _ID.match(text) or "__" in text or len(text) > 64:
        raise UsageError(
            f"{what} {value!r} must be lowercase letters, digits, '.', '_' or '-' (no '__')"
        )
    return text


Lookup = Callable[[str], Scope | None]


def on_disk(root: Path, config: ScopeConfig) -> Lookup:
    """Scopes by path as the disk shows them (a workspace's ``scope_at`` also asks git for the
    folders a sparse checkout leaves out)."""
    return lambda path: scope_at(root, path, config)


Prompt = Callable[[str, str], str]
Confirm = Callable[[str, bool], bool]
Echo = Callable[[str], None]


def from_flags(
    root: Path,
    config: ScopeConfig,
    flags: Flags,
    stored: Connection,
    hostname: str,
    confirm: Confirm | None = None,
    lookup: Lookup | None = None,
) -> Choice:
    """The connection the flags name. A scope that does not exist is offered for creation
    when ``confirm`` is given (a terminal), else reported and left out. ``lookup`` finds a
    scope by path (default: on disk)."""
    find = lookup or on_disk(root, config)
    if flags.guest:
        if flags.person or flags.host or flags.groups or flags.scopes:
            raise UsageError("--guest connects no scope: drop --person/--host/--group/--scope")
        return Choice("flags", [], None, ["guest: global skills only"])
    leaves: list[str] = []
    notes: list[str] = []
    asked: list[str] = []
    create: list[str] = []
    person_leaf: list[str] = []

    def exists(path: str, kind: str) -> bool:
        if path in create or find(path) is not None:
            return True
        if confirm is not None and confirm(f"{path} is not a scope yet. Create this {kind}?", True):
            create.append(path)
            return True
        return False

    person = _plain_id(flags.person, "--person") if flags.person else None
    if flags.host and not person:
        person = stored.person
        if not person:
            raise UsageError("--host needs --person (no person is stored in .exobrain.json)")
    if person:
        person_path = f"{folder_for(config, 'person')}/{person}"
        asked.append(f"--person {person}")
        if not exists(person_path, "person scope"):
            notes.append(missing_scope_note(person_path))
        else:
            host = _plain_id(flags.host, "--host") if flags.host else hostname
            host_path = f"{person_path}/{folder_for(config, 'host')}/{host}" if host else None
            named = bool(flags.host)  # a default host name is connected only when it exists
            if host_path and (
                find(host_path) is not None or (named and exists(host_path, "host scope"))
            ):
                person_leaf.append(host_path)
            else:
                person_leaf.append(person_path)
                if host_path:
                    notes.append(f"no host scope {host_path}; connected {person_path} only")
    for group in flags.groups:
        path = f"{folder_for(config, 'group')}/{_plain_id(group, '--group')}"
        asked.append(f"--group {group}")
        if exists(path, "group scope"):
            leaves.append(path)
        else:
            notes.append(missing_scope_note(path))
    for raw in flags.scopes:
        path = check_scope_path(raw)
        asked.append(f"--scope {raw}")
        if path == "global" or find(path) is None:
            notes.append(f"--scope {raw}: not a scope (no {path}/{SCOPE_FLAG} in a collection)")
        else:
            leaves.append(path)
    leaves += person_leaf
    if not leaves:
        raise OperationFailed(
            f"nothing connected: {', '.join(asked)} matched no scope (" + "; ".join(notes) + ")",
            hint="check the spelling, create the scope with exobrain scope new PATH (or run "
            "connect-agent on a terminal, which offers to), or pass --guest",
        )
    return Choice("flags", list(dict.fromkeys(leaves)), person, notes, create)


def stored_choice(stored: Connection) -> Choice:
    return Choice("stored", list(stored.connected_scopes), stored.person)


def wizard(
    root: Path,
    config: ScopeConfig,
    *,
    prompt: Prompt,
    confirm: Confirm,
    echo: Echo,
    login: str,
    hostname: str,
    lookup: Lookup | None = None,
    scopes: list[Scope] | None = None,
) -> Choice:
    """Ask who this is and which scopes to connect; offer to create a missing person or host
    scope (a folder with a stub AGENTS.md, written when the connect is applied). ``scopes``
    and ``lookup`` are what the repository holds (default: the disk)."""
    people = folder_for(config, "person")
    exists = lookup or on_disk(root, config)
    found = scopes if scopes is not None else scan_scopes(root, config).scopes
    persons = [s.name for s in found if s.type == "person"]
    groups = [s.name for s in found if s.type == "group" and s.path.count("/") == 1]
    echo(f"People here: {', '.join(persons) if persons else '(none yet)'}")
    default = "" if login.lower() in GENERIC_LOGINS else login.lower()
    while True:
        answer = prompt("Your handle (empty: connect as guest)", default).strip().lower()
        if not answer:
            return Choice("wizard", [], None, ["guest: global skills only"])
        if not _ID.match(answer) or "__" in answer:
            echo("A handle is lowercase letters, digits, '.', '_' or '-'.")
            continue
        if answer in GENERIC_LOGINS and not confirm(
            f"'{answer}' looks like a shared login, not a person. Use it anyway?", False
        ):
            continue
        person_path = f"{people}/{answer}"
        if answer in persons or exists(person_path) is not None:
            if not confirm(f"{person_path} already exists. Is that you?", True):
                continue
            create = []
        elif confirm(f"Create {person_path} with a stub {SCOPE_FLAG}?", True):
            create = [person_path]
        else:
            continue
        break
    notes, leaf = [], person_path
    host = prompt("This machine's host name (empty: none)", hostname).strip().lower()
    if host and (not _ID.match(host) or "__" in host):
        notes.append(f"host {host!r} is not a valid scope name; skipped")
    elif host:
        host_path = f"{person_path}/{folder_for(config, 'host')}/{host}"
        if exists(host_path) is not None:
            leaf = host_path
        elif confirm(f"Create {host_path} with a stub {SCOPE_FLAG}?", True):
            create.append(host_path)
            leaf = host_path
    leaves = []
    echo(f"Groups here: {', '.join(groups) if groups else '(none yet)'}")
    picked = prompt("Groups to join (comma-separated, empty: none)", "")
    for name in filter(None, (g.strip().lower() for g in picked.split(","))):
        path = f"{folder_for(config, 'group')}/{name}"
        if name in groups:
            leaves.append(path)
        elif not _ID.match(name) or "__" in name:
            notes.append(f"group {name!r} is not a valid scope name; skipped")
        elif confirm(f"There is no group {name!r} here. Create {path}?", False):
            create.append(path)
            leaves.append(path)
        else:
            notes.append(f"no group {name!r} here; skipped")
    return Choice("wizard", [*leaves, leaf], answer, notes, create)


def create_scopes(root: Path, config: ScopeConfig, paths: list[str]) -> None:
    """Create the scopes the person said yes to (ancestors first, as they were asked), each
    with its AGENTS.md and an empty skills.json; one that exists meanwhile is left alone."""
    for path in paths:
        if scope_at(root, path, config) is None:
            new_scope(root, config, path)
