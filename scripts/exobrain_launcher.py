"""The entry points of the toolkit's console scripts: they drop what ``PYTHONPATH`` aims at the
current folder before anything of the toolkit is imported.

pip writes each console script (``exobrain``, ``connect-agent``, …) as a few lines of Python
that import their entry point, and the interpreter it starts puts every ``PYTHONPATH`` entry
before the installed packages. An empty entry, ``.`` or any relative one names the current
folder, which is usually a repository anyone with push access fills: with the common
``export PYTHONPATH=$PYTHONPATH:/x`` (an empty first entry), a committed ``exobrain/`` package
would run instead of the toolkit. An entry point inside ``exobrain`` cannot defend itself:
importing it is what runs the committed package. And pip's scripts cannot carry interpreter
flags (``-I``, ``-E``): it rewrites their first line to the bare interpreter.

So the entry points live in this module, which the package installs twice: as a module beside
``exobrain`` and as a file in the scripts folder itself (``script-files``). Python puts a
script's own folder first on the import path, ahead of ``PYTHONPATH``, so the console scripts
import this file from beside them, whatever the current folder holds; it then removes the
relative and empty ``PYTHONPATH`` entries from the path and only then imports the toolkit.
Absolute entries are kept: a folder someone named on purpose is theirs to name.

What this cannot reach, as nothing inside a script can: what the interpreter imports before
a script's first line (``sitecustomize``, ``usercustomize``, and for scripts of older pips
``re``); and with ``PYTHONSAFEPATH`` set, the scripts folder is not on the path, so this module
is found through ``PYTHONPATH`` like any other. The authoring gate lists every importable name
new at a repository's root for review; the toolkit's own processes and the commands it writes
for agents, hooks and crons start the interpreter with ``-I`` (or ``-E -P``) and so never read
``PYTHONPATH`` at all.

Only ``sys`` (built in) and ``os`` (frozen, imported by ``site`` at start-up) are used here.
"""

from __future__ import annotations

import os
import sys


def _without_relative_pythonpath() -> None:
    """Take off ``sys.path`` each entry a relative or empty ``PYTHONPATH`` component put
    there (Python made each one absolute against the current folder at start-up)."""
    raw = os.environ.get("PYTHONPATH")
    if not raw or sys.flags.ignore_environment:
        return
    relative = {os.path.abspath(part) for part in raw.split(os.pathsep) if not os.path.isabs(part)}
    if relative:
        sys.path[:] = [entry for entry in sys.path if entry and entry not in relative]


#: Each console script and the command it starts (``module:attribute``).
ENTRIES = {
    "skills-status": "exobrain.cli.status:run",
    "skills-validate": "exobrain.cli.validate:run",
    "skills-promote": "exobrain.cli.promote:main",
    "fetch-external-skills": "exobrain.cli.fetch:main",
    "connect-agent": "exobrain.cli.connect:main",
    "exobrain": "exobrain.cli.umbrella:main",
    "authoring-review": "exobrain.cli.review:main",
}


def _start(script: str) -> object:
    _without_relative_pythonpath()
    module, _, attribute = ENTRIES[script].partition(":")
    entry = getattr(__import__(module, fromlist=[attribute]), attribute)
    return entry()


def skills_status() -> object:
    return _start("skills-status")


def skills_validate() -> object:
    return _start("skills-validate")


def skills_promote() -> object:
    return _start("skills-promote")


def fetch_external_skills() -> object:
    return _start("fetch-external-skills")


def connect_agent() -> object:
    return _start("connect-agent")


def exobrain() -> object:
    return _start("exobrain")


def authoring_review() -> object:
    return _start("authoring-review")
