"""A virtual environment where the toolkit is installed by pip with its base requirements
and nothing else: no extra, so none of the packages of ``[semantic]``, ``[mcp]`` or
``[test]`` — what the README's ``pip install .`` gives.

Offline: the base requirements (click, PyYAML, jsonschema, rich, semver, markdown-it-py and
what they require, found from the installed metadata) are the ones this suite runs on, made
visible to the new environment through a ``.pth`` file naming a folder of links to exactly
those distributions, so pip sees them installed and downloads nothing. Building a wheel the
usual way needs a build backend from the network (this suite's environment has setuptools
without ``wheel``), so the wheel pip installs is assembled here from ``pyproject.toml`` and
the package folder — the files, metadata (its ``Requires-Dist`` included) and console
scripts the build would give.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from tests.support import ROOT

DIST = "exobrain-skills"


def base_closure() -> list[metadata.Distribution]:
    """The distributions the toolkit's base requirements need, transitively (no extra)."""
    found: dict[str, metadata.Distribution] = {}
    pending = [Requirement(r) for r in metadata.requires(DIST) or []]
    while pending:
        requirement = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        key = requirement.name.lower().replace("_", "-")
        if key in found or key == DIST:
            continue
        dist = metadata.distribution(requirement.name)
        found[key] = dist
        pending += [Requirement(r) for r in dist.requires or []]
    return list(found.values())


def share(dists: list[metadata.Distribution], folder: Path) -> None:
    """Links in ``folder`` to the top-level files and folders of ``dists`` (their
    ``.dist-info`` included, so pip and importlib see them installed)."""
    folder.mkdir(parents=True)
    for dist in dists:
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in sorted(tops):
            target = folder / top
            if (base / top).exists() and not target.exists():
                target.symlink_to(base / top)


def wheel(to: Path) -> Path:
    """A wheel of the toolkit (pure Python: every file of the package folder, the launcher
    module and script file, the metadata and entry points ``pyproject.toml`` declares) in
    ``to``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata_lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata_lines += [f"Requires-Dist: {r}" for r in project["dependencies"]]
    for extra, requirements in project["optional-dependencies"].items():
        metadata_lines.append(f"Provides-Extra: {extra}")
        metadata_lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    files: dict[str, bytes] = {}
    package = ROOT / "scripts"
    for path in sorted((package / "exobrain").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(package).as_posix()] = path.read_bytes()
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for module in setuptools.get("py-modules", []):  # the console scripts' launcher
        files[f"{module}.py"] = (package / f"{module}.py").read_bytes()
    for script in setuptools.get("script-files", []):  # and its copy beside the scripts
        data = f"{name.replace('-', '_')}-{version}.data/scripts/{Path(script).name}"
        files[data] = (ROOT / script).read_bytes()
    scripts = "".join(f"{k} = {v}\n" for k, v in project["scripts"].items())
    files[f"{info}/METADATA"] = ("\n".join(metadata_lines) + "\n").encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tests.support.base_install\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/entry_points.txt"] = f"[console_scripts]\n{scripts}".encode()
    record = [
        f"{rel},sha256={_b64(hashlib.sha256(data).digest())},{len(data)}"
        for rel, data in files.items()
    ]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    to.mkdir(parents=True)
    built = to / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(built, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, data in files.items():
            archive.writestr(rel, data)
    return built


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def base_install(folder: Path) -> Path:
    """A new virtual environment under ``folder`` with the toolkit installed by pip with its
    base requirements alone; its ``bin`` folder."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    [site] = (venv / "lib").glob("python*/site-packages")
    shared = folder / "base-requirements"
    share(base_closure(), shared)
    (site / "base-requirements.pth").write_text(f"{shared}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    done = subprocess.run(
        [
            str(venv / "bin/python"),
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "--quiet",
            str(wheel(folder / "dist")),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return venv / "bin"
