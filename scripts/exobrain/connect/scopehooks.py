"""Scope hooks: executables a scope ships to finish connecting an agent its own way.

For each connected scope other than global, shallow to deep, ``<scope>/scripts/connect-agent``
then ``<scope>/scripts/connect-agent.<agent>`` run (when present; the bash implementation's
names with ``.sh`` are run when today's is absent) with the arguments
``AGENT TARGET_DIR SCOPE_DIR`` from the repository root. Each runs in its own process group
with a time limit; a hook that hangs is killed with its children, and a failing or hanging
hook is reported while the connect goes on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from exobrain.model import GLOBAL
from exobrain.paths import shown
from exobrain.scopes import Scope

HOOK_NAME = "connect-agent"
DEFAULT_TIMEOUT = 60.0
OUTPUT_MAX = 4000


@dataclass(frozen=True)
class ScopeHook:
    scope: str
    path: Path
    executable: bool


@dataclass(frozen=True)
class HookResult:
    hook: ScopeHook
    exit_code: int | None  # None when it was killed or could not start
    timed_out: bool
    seconds: float
    output: str
    error: str = ""  # why it could not start

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def as_json(self, root: Path) -> dict:
        return {
            "scope": self.hook.scope,
            "path": shown(self.hook.path, root),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "seconds": round(self.seconds, 3),
            "output": self.output,
            "error": self.error,
        }


def find_hooks(root: Path, chain: list[Scope], agent: str) -> list[ScopeHook]:
    """The hooks of the connected non-global scopes, shallow to deep, generic one first."""
    hooks = []
    for scope in chain:
        if scope.path == GLOBAL:
            continue
        folder = scope.directory(root) / "scripts"
        for name in (HOOK_NAME, f"{HOOK_NAME}.{agent}"):
            # the bash implementation's names end in .sh; a scope with both runs today's
            for path in (folder / name, folder / f"{name}.sh"):
                if path.is_file():
                    hooks.append(ScopeHook(scope.path, path, os.access(path, os.X_OK)))
                    break
    return hooks


def run_hook(
    hook: ScopeHook, root: Path, agent: str, target: Path, timeout: float = DEFAULT_TIMEOUT
) -> HookResult:
    """Run one hook; never raises for what the hook does."""
    if not hook.executable:
        return HookResult(
            hook, None, False, 0.0, "", error=f"not executable (chmod +x {shown(hook.path, root)})"
        )
    import tempfile  # only when a hook runs

    argv = [str(hook.path), agent, str(target), str(hook.path.parent.parent)]
    start = time.monotonic()
    with tempfile.TemporaryFile() as sink:
        try:
            process = subprocess.Popen(
                argv,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            return HookResult(hook, None, False, 0.0, "", error=exc.strerror or str(exc))
        timed_out = False
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out, code = True, None
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        seconds = time.monotonic() - start
        sink.seek(0)
        output = sink.read(OUTPUT_MAX + 1).decode("utf-8", "replace")
    if len(output) > OUTPUT_MAX:
        output = output[:OUTPUT_MAX] + "\n… (output cut)"
    return HookResult(hook, code, timed_out, seconds, output.rstrip("\n"))


def run_hooks(
    hooks: list[ScopeHook], root: Path, agent: str, target: Path, timeout: float = DEFAULT_TIMEOUT
) -> list[HookResult]:
    return [run_hook(h, root, agent, target, timeout) for h in hooks]
