"""Scope hooks: executables a scope ships to finish connecting an agent its own way.

For each connected scope other than global, shallow to deep, ``<scope>/scripts/connect-agent``
then ``<scope>/scripts/connect-agent.<agent>`` run (when present; the bash implementation's
names with ``.sh`` are run when today's is absent) with the arguments
``AGENT TARGET_DIR SCOPE_DIR`` from the repository root — but only when this machine trusts
their exact content (:mod:`exobrain.connect.trust`): a new or changed hook is reported with
the command that trusts it, and not run. Each runs in its own process group with a time limit;
a hook that hangs is killed with its children, and a failing, hanging or untrusted hook is
reported while the connect goes on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.connect import trust as trust_state
from exobrain.connect.trust import TrustRecord
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
    trust: str = trust_state.NEW  # TRUSTED, NEW or CHANGED on this machine
    sha256: str = ""  # the content that was judged

    @property
    def trusted(self) -> bool:
        return self.trust == trust_state.TRUSTED


@dataclass(frozen=True)
class HookResult:
    hook: ScopeHook
    exit_code: int | None  # None when it was killed or could not start
    timed_out: bool
    seconds: float
    output: str
    error: str = ""  # why it could not start
    untrusted: bool = False  # not run: this machine does not trust its content

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def as_json(self, root: Path) -> dict[str, Any]:
        return {
            "scope": self.hook.scope,
            "path": shown(self.hook.path, root),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "seconds": round(self.seconds, 3),
            "output": self.output,
            "error": self.error,
            "trust": self.hook.trust,
        }


def find_hooks(
    root: Path, chain: list[Scope], agent: str | None, store: dict[str, TrustRecord]
) -> list[ScopeHook]:
    """The hooks of the connected non-global scopes, shallow to deep, generic one first, each
    judged against the trust ``store``. ``agent`` None: the hooks of every agent."""
    hooks = []
    for scope in chain:
        if scope.path == GLOBAL:
            continue
        folder = scope.directory(root) / "scripts"
        for path in _candidates(folder, agent):
            hooks.append(
                ScopeHook(
                    scope.path,
                    path,
                    os.access(path, os.X_OK),
                    trust_state.state_of(path, store),
                    trust_state.digest(path) or "",
                )
            )
    return hooks


def _candidates(folder: Path, agent: str | None) -> list[Path]:
    """The hook files present: for one agent the generic then the agent's own, each under
    today's name or else the bash implementation's ``.sh`` one (a scope with both runs
    today's); for every agent (``None``) each file named like a hook."""
    if agent is not None:
        found = []
        for name in (HOOK_NAME, f"{HOOK_NAME}.{agent}"):
            for path in (folder / name, folder / f"{name}.sh"):
                if path.is_file():
                    found.append(path)
                    break
        return found
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(HOOK_NAME))
    except OSError:
        return []
    paths = [folder / n for n in names if n == HOOK_NAME or n.startswith(f"{HOOK_NAME}.")]
    return [path for path in paths if path.is_file()]


def run_hook(
    hook: ScopeHook, root: Path, agent: str, target: Path, timeout: float = DEFAULT_TIMEOUT
) -> HookResult:
    """Run one hook when its content is still the trusted one; never raises for what the hook
    does."""
    if not hook.trusted or not trust_state.is_trusted(hook.path, hook.sha256):
        why = "changed since it was trusted" if hook.trust == trust_state.CHANGED else "new"
        return HookResult(
            hook,
            None,
            False,
            0.0,
            "",
            error=f"not trusted on this machine ({why}): "
            + trust_state.review_hint(shown(hook.path, root)),
            untrusted=True,
        )
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
