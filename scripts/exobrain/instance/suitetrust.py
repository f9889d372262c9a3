"""What ``exobrain selftest``'s test suite can run, and whether this machine trusts it.

The suite is the repository's own code: pytest imports every test module and ``conftest.py``
it collects, the configuration at the root decides which plugins and folders load, and the
tests start the scripts of the skills they prove. A committer who adds
``skills/x/tests/test_x.py`` (or edits a ``conftest.py``) would run it on every member who
runs the self-test after a pull. So the suite runs only with the content this machine trusts
(``exobrain trust --suite``), as scope hooks do (:mod:`exobrain.connect.trust`): the trust
records one digest of every file the suite can load, and any change to one of them makes the
suite untrusted again until a person has read the change and trusted it anew.

What the suite can load (:func:`suite_unit`), relative to the root:

* every configured test path (``testpaths`` in ``pyproject.toml``, else ``tests``), whole,
  and every folder of pytest's ``pythonpath`` setting;
* ``scripts/``, which selftest puts first on the import path when the exobrain carries its own
  package;
* the files directly in the root (``conftest.py``, ``pyproject.toml`` and pytest's other
  configuration files, modules a plugin option may name) and in each folder above a test
  path (a ``conftest.py`` or ``__init__.py`` there is loaded with the tests below it);
* every importable package at the root (a folder with an ``__init__.py``): the root is on the
  import path while the tests run.

Of those, the files git tracks and the untracked ones it does not ignore are read (what a
pull can bring is tracked; an ignored file is the member's own). A link is followed when it
leads to a file inside the repository; one that leads elsewhere or to a folder makes the suite
unfit to trust, since its content could change without the digest seeing it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.connect.trust import SuiteRecord, load_suites
from exobrain.errors import OperationFailed
from exobrain.util.git import Git

TRUSTED, NEW, CHANGED = "trusted", "new", "changed"
SCRIPTS = "scripts"


@dataclass(frozen=True)
class Suite:
    """The suite of one repository as it is now: the paths it can load from, the digest of
    their content, and why it cannot be trusted at all (None when it can)."""

    root: Path
    paths: tuple[str, ...]
    files: int
    digest: str
    problem: str | None = None


def pytest_options(root: Path) -> dict[str, Any]:
    """``[tool.pytest.ini_options]`` of the pyproject.toml in ``root`` ({} when there is none)."""
    import tomllib

    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as handle:
        options = tomllib.load(handle).get("tool", {}).get("pytest", {}).get("ini_options", {})
    return options if isinstance(options, dict) else {}


def configured_paths(root: Path) -> list[str]:
    """The test paths pytest would collect here: ``testpaths`` from pyproject.toml that exist,
    else ``tests`` when it exists."""
    testpaths = pytest_options(root).get("testpaths", [])
    configured = [p for p in testpaths if isinstance(p, str)]
    return [p for p in configured or ["tests"] if (root / p).exists()]


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split()
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def suite_unit(root: Path) -> list[str]:
    """The folders whose content the suite can load (see the module docstring), relative to
    the root, without duplicates; the files directly in the root and in the folders above
    each one are added by :func:`suite_files`."""
    unit = configured_paths(root)
    unit += [p for p in _words(pytest_options(root).get("pythonpath")) if (root / p).is_dir()]
    if (root / SCRIPTS).is_dir():
        unit.append(SCRIPTS)
    unit += sorted(
        entry.name
        for entry in os.scandir(root)
        if entry.is_dir(follow_symlinks=False)
        and any((root / entry.name / f"__init__{s}").exists() for s in (".py", ".pyc"))
    )
    clean = [p.strip("/").removeprefix("./") or "." for p in unit]
    return list(dict.fromkeys(p for p in clean if p != "." and ".." not in p.split("/")))


def _above(unit: list[str]) -> set[str]:
    """The folders between the root and each path of ``unit`` ("" for the root itself)."""
    folders = {""}
    for path in unit:
        parts = path.split("/")
        folders.update("/".join(parts[:end]) for end in range(1, len(parts)))
    return folders


def suite_files(root: Path, unit: list[str]) -> list[str]:
    """Every file git keeps (tracked, or untracked and not ignored) under ``unit``, plus those
    directly in the root and in each folder above a path of it; sorted."""
    done = Git(timeout=120).run(
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, check=False
    )
    if done.returncode != 0:
        raise OperationFailed(f"{root}: git cannot list the files of the test suite")
    above = _above(unit)
    found = set()
    for path in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not path:
            continue
        folder = path.rpartition("/")[0]
        if folder in above or any(path.startswith(f"{p}/") or path == p for p in unit):
            found.add(path)
    return sorted(found)


def _entry(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """One file's line of the digest, or why the suite cannot be trusted because of it
    (None, None: the file is gone, as git's listing can be of a deleted file)."""
    path = root / rel
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None
    link = b""
    if stat.S_ISLNK(info.st_mode):
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(root) or not target.is_file():
            return None, f"{rel} is a link to {target}, outside the repository or not a file"
        link = os.fsencode(os.readlink(path))
    elif not stat.S_ISREG(info.st_mode):
        return None, f"{rel} is not a regular file (a submodule or a special file)"
    content = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            content.update(block)
    return os.fsencode(rel) + b"\0" + link + b"\0" + content.hexdigest().encode() + b"\n", None


def current_suite(root: Path) -> Suite:
    """The suite of the repository at ``root`` as it is on disk now."""
    root = Path(os.path.realpath(root))
    unit = suite_unit(root)
    digest = hashlib.sha256()
    count = 0
    for rel in suite_files(root, unit):
        line, problem = _entry(root, rel)
        if problem is not None:
            return Suite(root, tuple(unit), count, "", problem)
        if line is not None:
            digest.update(line)
            count += 1
    return Suite(root, tuple(unit), count, digest.hexdigest())


def trust_state(suite: Suite) -> tuple[str, SuiteRecord | None]:
    """TRUSTED, NEW (never trusted here) or CHANGED, with the record found (if any)."""
    record = load_suites().get(str(suite.root))
    if record is None:
        return NEW, None
    return (TRUSTED if record.sha256 == suite.digest else CHANGED), record


def head_commit(root: Path) -> str | None:
    """The commit checked out at ``root`` (None outside git or before the first commit)."""
    done = Git(timeout=30).run(["rev-parse", "--verify", "-q", "HEAD"], cwd=root, check=False)
    text = done.stdout.decode("ascii", "replace").strip()
    return text if done.returncode == 0 and text else None


def review_command(suite: Suite, record: SuiteRecord | None) -> str:
    """What a person reads before trusting: the change since the trusted commit, else the
    suite's folders."""
    paths = " ".join(suite.paths)
    if record is not None and record.commit:
        return f"git diff {record.commit[:12]} -- {paths} (and any file at the root)"
    return f"the tests and code under {paths} (and the files at the root)"
