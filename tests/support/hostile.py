"""Running commands against hostile inputs, and the exobrain the bounds, schema, trust and
integrity attacks share (the snapshot of what must not change is :mod:`tests.support.sandbox`'s).

Commands run in-process through click (a traceback would be an exception other than the
command's own exit) or, for inputs that could exhaust the machine if a bound regressed, as the
installed console scripts under a memory limit.
"""

from __future__ import annotations

import importlib
import resource
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

from tests.support.helpers import exobrain
from tests.support.sandbox import snapshot

#: console script → its click command
COMMANDS = {
    "skills-status": "exobrain.cli.status:main",
    "skills-validate": "exobrain.cli.validate:main",
    "skills-promote": "exobrain.cli.promote:main",
    "connect-agent": "exobrain.cli.connect:main",
    "fetch-external-skills": "exobrain.cli.fetch:main",
    "authoring-review": "exobrain.cli.review:main",
    "exobrain": "exobrain.cli.umbrella:main",
}
#: What a hostile input may cost a command run as a process (the bounds are 500 MB and 5 s,
#: measured by ``python scripts/benchmarks security``; these only stop a regression from taking
#: the machine down with it).
MEMORY_LIMIT = 2 << 30
TIME_LIMIT = 120


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def invoke(root: Path, argv: list[str]) -> Outcome:
    """Run a console script in-process on ``root``; fails the test on anything but the
    command's own exit (that would be a traceback for its user)."""
    module, attribute = COMMANDS[argv[0]].split(":")
    command = getattr(importlib.import_module(module), attribute)
    result = CliRunner().invoke(command, [*argv[1:], "--repo", str(root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{argv}: {result.exception!r}\n{result.output}") from (
            result.exception
        )
    assert "Traceback" not in result.output
    return Outcome(result.exit_code, result.stdout, result.stderr)


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def spawn(root: Path, argv: list[str]) -> Outcome:
    """Run the installed console script as a process under a memory limit."""
    script = Path(sys.executable).parent / argv[0]
    done = subprocess.run(
        [str(script), *argv[1:]],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limits,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return Outcome(done.returncode, done.stdout, done.stderr)


def shared_exobrain(base: Path) -> Path:
    """global: hello, world (forced); groups/acme: tidy (forced); alice connected to both."""
    return exobrain(
        base / "exo",
        registries={
            "global": [
                {"name": "hello", "owner": "team", "tier": "optional", "force": True},
                {"name": "world", "owner": "team", "tier": "always", "force": True},
            ],
            "groups/acme": [{"name": "tidy", "owner": "acme", "tier": "always", "force": True}],
            "people/alice": [{"name": "hello", "from": "global", "tier": "always"}],
        },
        scopes=["groups/acme", "people/alice"],
        skills={"global/hello": None, "global/world": None, "groups/acme/tidy": None},
        connection={
            "connected_scopes": ["groups/acme", "people/alice"],
            "person": "alice",
            "agents": ["claude"],
        },
    )


def user_files(base: Path, home: Path) -> list[Path]:
    """Files of the user's outside the exobrain, which no attack may touch."""
    made = []
    for path, text in (
        (home / ".bashrc", "export PATH=$PATH\n"),
        (home / ".ssh/authorized_keys", "ssh-ed25519 AAAA user\n"),
        (base / "victim/notes.md", "mine\n"),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        made.append(path)
    return made


@dataclass(frozen=True)
class Scene:
    root: Path  # the exobrain
    home: Path  # the isolated HOME
    victim: Path  # a folder of the user's, watched (markers of code that ran land here)
    scratch: Path  # where a test builds what the attacker controls (upstreams, instances)
    #: files outside the repository the command under test is meant to write (a test adds
    #: them: Claude Code's MCP entry lives in the user's own .claude.json)
    expected: list[Path] = field(default_factory=list)


@contextmanager
def watched_scene(tmp_path: Path, home: Path) -> Iterator[Scene]:
    """The scene of :func:`sandbox` in ``tmp_path`` with ``home``; on leaving, nothing outside
    the exobrain, the scratch folder and the toolkit's own folders may have changed."""
    root = shared_exobrain(tmp_path)
    user_files(tmp_path, home)
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    own = (".cache", ".config", ".local/state")  # the toolkit's own folders live in there
    for folder in own:
        (home / folder).mkdir(parents=True, exist_ok=True)
    skip = (root, scratch, *(home / folder / "exobrain" for folder in own))
    before = snapshot(tmp_path, home, skip=skip)
    scene = Scene(root, home, tmp_path / "victim", scratch)
    yield scene
    after = snapshot(tmp_path, home, skip=skip)
    meant = {str(p) for p in scene.expected} | {str(p.parent) for p in scene.expected}
    changed = sorted(c for c in set(before.items()) ^ set(after.items()) if c[0] not in meant)
    assert not changed, f"changed outside the sandbox: {changed}"
