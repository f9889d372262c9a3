"""``exobrain selftest``: is this exobrain healthy? One verdict per check, each with its fix.

The checks, in order (:data:`CHECKS`):

* ``schemas`` — ``skills.schema.json`` and the package's schemas are present and are valid
  JSON Schemas, and every ``$schema`` reference in a registry or ``crons.json`` resolves;
* ``skills-validate`` — the repository validates without errors (infos are fine);
* ``locks`` — every versioned skill's lock is up to date (``exobrain lock --check``);
* ``docs`` — the agent docs name only commands, verbs and files that exist;
* ``agents`` — for each agent connected here, what is on disk equals what connect-agent would
  make of it now (links, indexes, context files, git hooks: its dry-run plan holds only
  "kept" actions);
* ``git-hooks`` — the hooks this exobrain relies on are installed: pre-commit's (when
  ``.pre-commit-config.yaml`` exists) and connect-agent's (when an agent is connected);
* ``test-suite`` — the package's own tests pass (``pytest -x``, with this exobrain's
  ``scripts/`` first on the import path, in parallel when its pytest options say so), when
  the exobrain carries a test suite. By default only the quick part runs (:func:`quick_paths`:
  the skills' own proofs and the toolkit's core tests, well under a minute); ``full`` runs every
  configured test path, which takes minutes. The suite is the repository's own code: it runs
  only when this machine trusts its content (``exobrain trust --suite``,
  :mod:`exobrain.instance.suitetrust`); otherwise the check is skipped with what to read and
  how to trust it (a failure when ``--full`` or ``--suite`` asked for the suite).

Checks never write. A check that does not apply is skipped, which is not a failure.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.caches import BYTECODE
from exobrain.instance import agentcheck
from exobrain.instance.suitetrust import configured_paths, pytest_options
from exobrain.instance.verdict import FAIL, PASS, SKIP, Check
from exobrain.paths import PACKAGED_DATA, user_cache_dir
from exobrain.workspace import Workspace

CHECKS = ("schemas", "skills-validate", "locks", "docs", "agents", "git-hooks", "test-suite")
PACKAGE_SCHEMAS = "scripts/exobrain/schemas"


@dataclass(frozen=True)
class Options:
    suite: bool = True  # run the test suite when there is one
    suite_paths: tuple[str, ...] = ()  # limit it to these paths (default: the quick part)
    full: bool = False  # the whole configured suite instead of its quick part
    suite_timeout: float = 1800.0
    verbs: frozenset[str] = frozenset()  # the exobrain umbrella's verbs (docs may name them)


@dataclass
class Result:
    checks: list[Check]

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def as_json(self) -> dict[str, Any]:
        counts = {s: sum(1 for c in self.checks if c.status == s) for s in (PASS, FAIL, SKIP)}
        return {"checks": [c.as_json() for c in self.checks], **counts, "exit_code": self.exit_code}


def selftest(
    ws: Workspace, options: Options = Options(), progress: Callable[[Check], None] | None = None
) -> Result:
    """Run every check in order; ``progress`` sees each verdict as soon as it is known."""
    steps: list[tuple[str, Callable[[], Check]]] = [
        ("schemas", lambda: check_schemas(ws)),
        ("skills-validate", lambda: check_validate(ws)),
        ("locks", lambda: check_locks(ws)),
        ("docs", lambda: check_docs(ws, options.verbs)),
        ("agents", lambda: agentcheck.check_agents(ws)),
        ("git-hooks", lambda: agentcheck.check_hooks(ws)),
        ("test-suite", lambda: check_suite(ws.root, options)),
    ]
    checks = []
    for name, run in steps:
        start = time.perf_counter()
        try:
            check = run()
        except Exception as exc:
            from exobrain.errors import ExobrainError

            text = str(exc) if isinstance(exc, ExobrainError) else f"{type(exc).__name__}: {exc}"
            check = Check(name, FAIL, "the check itself failed", [text])
        check.seconds = time.perf_counter() - start
        checks.append(check)
        if progress:
            progress(check)
    return Result(checks)


def check_schemas(ws: Workspace) -> Check:
    import jsonschema

    from exobrain.util.fileio import load_json

    root, problems, seen = ws.root, [], 0
    schemas = [root / "skills.schema.json"]
    package = root / PACKAGE_SCHEMAS
    if package.parent.is_dir():  # the package lives here: it needs every schema it ships
        shipped = PACKAGED_DATA
        names = {p.name for p in shipped.glob("*.schema.json")}
        names |= {p.name for p in package.glob("*.schema.json")}
        schemas += [package / name for name in sorted(names)]
    for path in schemas:
        rel = path.relative_to(root).as_posix()
        if not path.is_file():
            problems.append(f"{rel} is missing")
            continue
        try:
            schema = load_json(path)
            jsonschema.validators.validator_for(schema).check_schema(schema)
            seen += 1
        except Exception as exc:
            problems.append(f"{rel}: not a valid JSON Schema ({str(exc).splitlines()[0]})")
    references = 0
    documents = [r.path for r in ws.all_registries() if r.exists]
    documents += [root / "crons.json"] if (root / "crons.json").is_file() else []
    for document in documents:
        try:
            target = load_json(document).get("$schema")
        except Exception:
            continue
        if isinstance(target, str) and "://" not in target:
            references += 1
            if not (document.parent / target).is_file():
                problems.append(
                    f"{document.relative_to(root).as_posix()}: $schema {target!r} does not exist"
                )
    detail = f"{seen} schema(s) valid, {references} $schema reference(s) resolve"
    if problems:
        return Check(
            "schemas",
            FAIL,
            f"{len(problems)} problem(s)",
            problems,
            "restore the schema files from the seed (exobrain harvest shows what differs)",
        )
    return Check("schemas", PASS, detail)


def check_validate(ws: Workspace) -> Check:
    from exobrain.findings import ERROR
    from exobrain.gate.validate import exit_code, validate

    findings = validate(ws)
    errors = [f for f in findings if f.level == ERROR]
    detail = f"{len(errors)} error(s), {len(findings) - len(errors)} info(s)"
    if exit_code(findings, strict=False):
        return Check(
            "skills-validate",
            FAIL,
            detail,
            [f.render() for f in errors[:20]],
            "run skills-validate and fix each finding",
        )
    return Check("skills-validate", PASS, detail)


def check_locks(ws: Workspace) -> Check:
    from exobrain.artifacts.register import lock_all

    report = lock_all(ws, check=True)
    if report.stale:
        return Check(
            "locks",
            FAIL,
            f"{len(report.stale)} lock(s) out of date",
            report.stale,
            "exobrain lock (or exobrain register PATH --bump patch for changed content)",
        )
    return Check("locks", PASS, "every lock is up to date")


def check_docs(ws: Workspace, verbs: frozenset[str]) -> Check:
    """Every command, verb (of ``verbs``) and path the agent docs name exists."""
    from exobrain.instance import docfacts
    from exobrain.util.fileio import read_text

    folder = ws.root / "knowledge" / "exobrain"
    docs = sorted(folder.glob("*.md")) if folder.is_dir() else []
    if not docs:
        return Check("docs", SKIP, "no knowledge/exobrain/*.md here")
    programs = docfacts.console_scripts(ws.root) or _installed_scripts()
    problems = [
        f"{doc.relative_to(ws.root).as_posix()}: {problem}"
        for doc in docs
        for problem in docfacts.problems(ws.root, read_text(doc), programs, set(verbs))
    ]
    if problems:
        return Check(
            "docs",
            FAIL,
            f"{len(problems)} stale statement(s)",
            problems,
            "correct the docs (or restore what they name)",
        )
    return Check("docs", PASS, f"{len(docs)} doc(s) name only what exists")


def _installed_scripts() -> set[str]:
    from importlib.metadata import entry_points

    return {
        e.name
        for e in entry_points(group="console_scripts")
        if e.value.startswith(("exobrain.", "exobrain_launcher:"))
    }


#: The toolkit's own tests that stay in the quick part: the core (resolution, registries,
#: scopes, frontmatter) that every other family stands on.
CORE_TESTS = "tests/core"


def quick_paths(root: Path) -> list[str]:
    """The quick part of the suite: every configured test path other than the toolkit's
    ``tests/`` (there the skill folders keep the proofs that travel with them) and the
    toolkit's core tests. A skill's proof is what an instance's authors change; the rest of the
    toolkit's suite checks code the instance rarely touches and takes minutes, so it waits for
    ``--full``. When that leaves nothing, the whole configured suite is the quick part."""
    configured = configured_paths(root)
    quick = [p for p in configured if p.strip("/") != "tests"]
    if "tests" in (p.strip("/") for p in configured) and (root / CORE_TESTS).is_dir():
        quick.append(CORE_TESTS)
    return quick or configured


def runs_in_parallel(root: Path) -> bool:
    """Whether the configured ``addopts`` distribute the suite (pytest-xdist's ``-n`` or
    ``--dist``), so pytest needs that plugin to start at all."""
    import shlex

    addopts = pytest_options(root).get("addopts", "")
    words = shlex.split(addopts) if isinstance(addopts, str) else [str(w) for w in addopts]
    return any(w.startswith(("-n", "--numprocesses", "--dist")) for w in words)


def check_suite(root: Path, options: Options) -> Check:
    """pytest over the exobrain's own suite, importing this exobrain's package, when this
    machine trusts the suite's content (:mod:`exobrain.instance.suitetrust`)."""
    import importlib.util

    configured = configured_paths(root) if options.full else quick_paths(root)
    paths = list(options.suite_paths) or configured
    if not paths:
        return Check("test-suite", SKIP, "no test suite here")
    if not options.suite:
        return Check("test-suite", SKIP, "skipped (--no-suite)")
    missing = [p for p in paths if not (root / p).exists()]
    if missing:
        return Check("test-suite", FAIL, f"no such test path: {', '.join(missing)}")
    untrusted = _untrusted(root, paths, asked=options.full or bool(options.suite_paths))
    if untrusted is not None:
        return untrusted
    if importlib.util.find_spec("pytest") is None:
        return Check(
            "test-suite",
            FAIL,
            "pytest is not installed",
            fix="pip install -e '.[test]' (or pass --no-suite)",
        )
    if runs_in_parallel(root) and importlib.util.find_spec("xdist") is None:
        return Check(
            "test-suite",
            FAIL,
            "pytest-xdist is not installed (pyproject.toml's addopts run the suite in parallel)",
            fix="pip install -e '.[test]' (or pass --no-suite)",
        )
    argv, env = _pytest_command(root, paths)
    whole = options.full and not options.suite_paths
    shown = "pytest -x" if whole else "pytest -x " + " ".join(paths)
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=options.suite_timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Check("test-suite", FAIL, f"{shown}: no result after {options.suite_timeout:g}s")
    summary = _summary(done.stdout) or (done.stderr.strip().splitlines() or ["no output"])[-1]
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-25:]
        return Check(
            "test-suite",
            FAIL,
            f"{shown}: {summary}",
            tail,
            f"run {shown} here and fix the first failure",
        )
    return Check("test-suite", PASS, f"{shown}: {summary}")


def _untrusted(root: Path, paths: list[str], *, asked: bool) -> Check | None:
    """The verdict when the suite may not run here (None: it is trusted as it is). Run by
    default, an untrusted suite is skipped with what to do; asked for (``--full``,
    ``--suite``), it is a failure."""
    from exobrain.instance import suitetrust

    suite = suitetrust.current_suite(root)
    outside = [p for p in paths if not _inside(p, suite.paths)]
    if outside:
        return Check(
            "test-suite",
            FAIL,
            f"not part of the test suite: {', '.join(outside)}",
            fix="name paths under the configured test paths "
            f"({', '.join(configured_paths(root))}): only they are trusted as the suite",
        )
    if suite.problem is not None:
        return Check(
            "test-suite",
            FAIL,
            "the test suite cannot be trusted",
            [suite.problem],
            "remove the link, or point it at a file inside the repository",
        )
    state, record = suitetrust.trust_state(suite)
    if state == suitetrust.TRUSTED:
        return None
    why = (
        "never trusted on this machine"
        if record is None
        else f"changed since it was trusted on {record.trusted_at}"
    )
    review = suitetrust.review_command(suite, record)
    return Check(
        "test-suite",
        FAIL if asked else SKIP,
        f"not run: the test suite is the repository's own code, {why}",
        [f"read it first: {review}"],
        "once a person has read it: exobrain trust --suite (an agent asks its user; it never "
        "trusts code on its own)",
    )


def _inside(path: str, unit: tuple[str, ...]) -> bool:
    clean = path.strip("/").removeprefix("./")
    return any(clean == p or clean.startswith(f"{p}/") for p in unit)


def _pytest_command(root: Path, paths: list[str]) -> tuple[list[str], dict[str, str]]:
    """pytest's command line and environment: this exobrain's ``scripts/`` alone on
    ``PYTHONPATH`` (the user's entries dropped: an empty or relative one would name the
    repository's root), ``-P`` and pytest's append mode so that neither the current folder nor
    the test folders' root goes before the installed packages (an ``exobrain/`` or
    ``pytest/`` folder committed at the root is never what runs), and bytecode in the user
    cache, not in the exobrain (checks never write there; a prefix the user chose is kept)."""
    import sys

    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or str(user_cache_dir() / BYTECODE.folder)
    env = {**os.environ, "PYTHONPYCACHEPREFIX": prefix}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPATH", None)
    if (root / "scripts" / "exobrain" / "__init__.py").is_file():
        env["PYTHONPATH"] = str(root / "scripts")
    argv = [sys.executable, "-P", "-m", "pytest", "-x", "-p", "no:cacheprovider"]
    return [*argv, "--import-mode=append", *paths], env


def _summary(output: str) -> str | None:
    """pytest's closing tally ("3 passed, 1 skipped in 0.52s"), without its decoration."""
    import re

    for line in reversed(output.splitlines()):
        match = re.search(
            r"\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|"
            r"warnings?)\b.* in [\d.]+s",
            line,
        )
        if match:
            return match.group(0)
    return None
