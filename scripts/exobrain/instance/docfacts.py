"""The facts an agent doc states that can be checked: the commands it tells you to run and the
repository paths it points at.

The agent docs (``knowledge/exobrain/*.md``) and the skills' own texts are read by agents that
act on them literally, so a renamed command or a moved file there is a bug. Used by the test
suite and by ``exobrain selftest``'s docs check.

What counts:

* a **command** is a code span (or a line of a fenced shell block) whose first word is
  ``exobrain`` followed by a word, or a hyphenated lowercase word followed by an option —
  ``skills-status --all``, ``connect-agent claude --relink`` (``only-there PATH`` is a label,
  not a command); ``exobrain VERB`` names a verb unless VERB is a placeholder (``VERB``,
  ``<verb>``);
* a **path** is a code span without spaces or placeholders whose first segment is one of
  :data:`CHECKED_ROOTS` (``scripts/…``, ``seed/…``), or the first column of a table in a
  ``## File map`` section. Paths under ``seed/`` are skipped where there is no ``seed/`` (an
  instance), and so are paths git ignores (agent folders, the connection file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CHECKED_ROOTS = ("scripts", "knowledge", "seed", "skills", ".github", ".ci")
#: Hyphenated commands of other tools that the docs may name.
FOREIGN_COMMANDS = frozenset({"pre-commit"})
_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^```(?:bash|sh|shell|console)?\s*$\n(.*?)^```\s*$", re.M | re.S)
_HYPHENATED = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
_VERB = re.compile(r"^[a-z][a-z-]*$")
_PATH = re.compile(r"^\.?[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.][A-Za-z0-9_.-]*)*/?$")
_FILE_MAP_ROW = re.compile(r"^\| `([^`]+)` \|", re.M)


@dataclass(frozen=True)
class Command:
    program: str
    verb: str | None  # for exobrain: the verb named (None: a placeholder or none)
    text: str


def _snippets(text: str) -> list[str]:
    snippets = _SPAN.findall(text)
    for block in _FENCE.findall(text):
        snippets += [line.strip().lstrip("$ ") for line in block.splitlines() if line.strip()]
    return snippets


def commands(text: str) -> list[Command]:
    """Every command the text tells a reader to run."""
    found = []
    for snippet in _snippets(text):
        for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", snippet):
            words = part.split()
            if len(words) < 2 or words[0].startswith("#"):
                continue
            if words[0] == "exobrain":
                verb = words[1] if _VERB.match(words[1]) else None
                found.append(Command("exobrain", verb, part))
            elif _HYPHENATED.match(words[0]) and any(w.startswith("-") for w in words[1:]):
                found.append(Command(words[0], None, part))
    return found


def paths(text: str) -> list[str]:
    """Every repository path the text points at (see the module docstring)."""
    found = [
        p
        for section in re.findall(r"^## File map\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        for p in _FILE_MAP_ROW.findall(section)
        if " " not in p
    ]
    for span in _SPAN.findall(text):
        if _PATH.match(span) and "/" in span and span.split("/", 1)[0] in CHECKED_ROOTS:
            found.append(span)
    return list(dict.fromkeys(found))


def problems(root: Path, text: str, programs: set[str], verbs: set[str]) -> list[str]:
    """What the text states that is not so in ``root``: unknown commands, verbs and paths."""
    found = []
    for command in commands(text):
        if command.program == "exobrain":
            if command.verb is not None and command.verb not in verbs:
                found.append(f"`{command.text}`: exobrain has no verb {command.verb!r}")
        elif command.program not in programs and command.program not in FOREIGN_COMMANDS:
            found.append(f"`{command.text}`: no command {command.program!r}")
    has_seed = (root / "seed").is_dir()
    for path in paths(text):
        if path.startswith("seed/") and not has_seed:
            continue
        if not (root / path).exists() and not _ignored(root, path):
            found.append(f"`{path}` does not exist")
    return found


def _ignored(root: Path, path: str) -> bool:
    """Whether git ignores ``path`` (as a file or a folder): a per-machine path such as an
    agent's skills folder, which a clean checkout does not have."""
    from exobrain.util.git import Git

    git = Git(timeout=10)
    for candidate in (path.rstrip("/"), path.rstrip("/") + "/"):
        if (
            git.run(
                ["check-ignore", "-q", "--no-index", "--", candidate], cwd=root, check=False
            ).returncode
            == 0
        ):
            return True
    return False


def console_scripts(root: Path) -> set[str]:
    """The console scripts ``pyproject.toml`` at ``root`` declares (none without the file)."""
    import tomllib

    path = root / "pyproject.toml"
    if not path.is_file():
        return set()
    with open(path, "rb") as handle:
        return set(tomllib.load(handle).get("project", {}).get("scripts", {}))
