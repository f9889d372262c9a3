"""``build_site``: write the static site for a data dict into a folder, touching only its own files.

The site is built in a private staging folder inside ``out_dir`` (same file system), then each
file is moved into place with one ``rename`` and the files of the previous build it no longer
writes are removed, all by the folder's manifest (:mod:`exobrain.site.manifest`): whatever else
the folder holds (a ``gh-pages`` checkout's ``.git/``, a ``CNAME``) is left as it is. A render
error leaves the folder as it was.

Inside the private staging folder each file is created with ``open(..., "x")`` (a name that
already exists, a link included, is an error rather than followed). Skill pages — markdown
rendering dominates the build — are written by forked worker processes when the catalog is
large and the platform can fork, while the main process builds the index and the catalog; the
output is byte-identical to a serial build (``jobs=1``).
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing as mp
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.site.catalog_page import catalog_html, scopes_html
from exobrain.site.data import SiteData, normalise
from exobrain.site.discovery import INDEX, Discovery, write_discovery
from exobrain.site.layout import ASSET_FILES, SiteModel, scope_path, skill_path
from exobrain.site.manifest import (
    Kept,
    SiteUpdate,
    install,
    open_folder,
    previous_files,
    shown_paths,
    staging_folder,
)
from exobrain.site.scope_page import scope_html
from exobrain.site.searchindex import build_index, index_js
from exobrain.site.skill_page import skill_html
from exobrain.util.dirhash import file_digest
from exobrain.util.progress import Progress

ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PARALLEL_MIN_SKILLS = 300
CHUNK = 100

_JOB: tuple[SiteModel, Path] | None = None  # inherited by forked workers


@dataclass
class SiteBuild:
    """What a build did to its folder (:class:`~exobrain.site.manifest.SiteUpdate`) and what
    its discovery index lists."""

    update: SiteUpdate
    discovery: Discovery

    @property
    def files(self) -> list[str]:
        return self.update.files

    @property
    def removed(self) -> list[str]:
        return self.update.removed

    @property
    def kept(self) -> list[Kept]:
        return self.update.kept

    def as_json(self) -> dict[str, Any]:
        return {**self.update.as_json(), "discovery": self.discovery.as_json()}

    def report_lines(self) -> list[str]:
        """The lines after "wrote N files": the index, what was removed and what kept (paths
        and names sanitised for a terminal)."""
        left = [f"{ref} ({why})" for ref, why in self.discovery.left_out.items()]
        lines = [
            f"discovery index {INDEX}: {len(self.discovery.entries)} skills"
            + (f"; left out {len(left)}: {shown_paths(left)}" if left else "")
        ]
        if self.removed:
            lines.append(
                f"removed {len(self.removed)} files of the previous build it no longer "
                f"writes: {shown_paths(self.removed)}"
            )
        if foreign := self.update.foreign():
            lines.append(f"kept {len(foreign)} it did not write: {shown_paths(foreign)}")
        if edited := self.update.edited():
            lines.append(
                f"kept {len(edited)} of the previous build, changed since (not removed): "
                f"{shown_paths(edited)}"
            )
        return lines


def _write(out_dir: Path, rel: str, text: str) -> tuple[str, str]:
    """Write a new file of the site; its path and sha256 (for the manifest)."""
    path = out_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    with open(path, "xb") as fh:
        fh.write(data)
    return rel, hashlib.sha256(data).hexdigest()


def _skill_pages(start: int, end: int) -> list[tuple[str, str]]:
    """Write skill pages ``start..end-1`` of the job set up by ``build_site``."""
    assert _JOB is not None
    model, out_dir = _JOB
    return [
        _write(out_dir, skill_path(s), skill_html(model, s)) for s in model.cat.skills[start:end]
    ]


def _jobs(requested: int | None, n: int) -> int:
    if requested is not None:
        return max(1, requested)
    if n < PARALLEL_MIN_SKILLS or "fork" not in mp.get_all_start_methods():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def build_site(
    data: SiteData | dict[str, Any],
    out_dir: Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
    jobs: int | None = None,
) -> SiteBuild:
    """Write the static site for ``data`` into ``out_dir``; what it wrote (POSIX paths relative
    to ``out_dir``, sorted; the manifest not listed), removed and kept, and what its discovery
    index (:mod:`exobrain.site.discovery`) lists.

    ``out_dir`` must be new, empty or hold the manifest of an earlier build; ``force`` writes
    into any folder, adding and overwriting files only (:mod:`exobrain.site.manifest`).
    ``progress(stage, done, total)`` is called as skill pages are done. ``jobs``: worker
    processes for skill pages (default: the CPUs, at most 8, for catalogs of 300 skills or
    more where ``fork`` exists, else 1 = in this process).
    """
    out_dir = Path(os.path.abspath(out_dir))
    previous = previous_files(out_dir, force=force)
    cat = normalise(data)
    model = SiteModel.of(cat)
    _, made = open_folder(out_dir)
    stage = staging_folder(out_dir)
    try:
        written = dict(_build(model, stage, progress, _jobs(jobs, len(cat.skills))))
        discovery = write_discovery(cat, stage)
        written.update(discovery.files)
        return SiteBuild(install(out_dir, stage, written, previous, force=force), discovery)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if made:
            try:
                out_dir.rmdir()  # only if the failed build left it as it made it: empty
            except OSError:
                pass
        raise


def _build(
    model: SiteModel, stage: Path, progress: Progress | None, n_jobs: int
) -> list[tuple[str, str]]:
    """Write every file of the site into ``stage``; each one's path and sha256."""
    global _JOB
    cat = model.cat
    total = len(cat.skills)
    written: list[tuple[str, str]] = []
    _JOB = (model, stage)
    pool = None
    futures = []
    # The input can hold millions of objects: keep them out of the cyclic GC's scans (which
    # otherwise make the build superlinear) and out of copy-on-write in the workers.
    gc.freeze()
    try:
        if n_jobs > 1:
            pool = ProcessPoolExecutor(n_jobs, mp_context=mp.get_context("fork"))
            futures = [
                pool.submit(_skill_pages, i, min(i + CHUNK, total)) for i in range(0, total, CHUNK)
            ]
        (stage / "assets").mkdir()
        for name in ASSET_FILES:
            shutil.copyfile(ASSETS_DIR / name, stage / "assets" / name)
            written.append((f"assets/{name}", file_digest(stage / "assets" / name)))
        pages = [skill_path(s) for s in cat.skills]
        written.append(_write(stage, "search-index.js", index_js(build_index(cat, pages))))
        written.append(_write(stage, "index.html", catalog_html(model)))
        written.append(_write(stage, "scopes.html", scopes_html(model)))
        written += [_write(stage, scope_path(name), scope_html(model, name)) for name in cat.scopes]
        if pool is None:
            last = time.monotonic()
            for i in range(0, total, CHUNK):
                written += _skill_pages(i, min(i + CHUNK, total))
                if progress and (time.monotonic() - last > 0.5 or i + CHUNK >= total):
                    progress("skill pages", min(i + CHUNK, total), total)
                    last = time.monotonic()
        else:
            done = 0
            for fut in as_completed(futures):
                paths = fut.result()
                written += paths
                done += len(paths)
                if progress:
                    progress("skill pages", done, total)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        _JOB = None
        gc.unfreeze()
    return written
