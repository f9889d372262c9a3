"""``build_site``: write the whole static site for a data dict, all at once or not at all.

The site is built in a staging folder beside ``out_dir`` and renamed into place
(:func:`~exobrain.util.staging.staged_folder`), so a reader of the old site never sees half a
new one and an error leaves the old one as it was. ``out_dir`` is replaced only when it is
empty or carries the marker ``.exobrain-site`` of an earlier build, so a typo in ``-o`` never
wipes someone's folder.

Inside the private staging folder each file is created with ``open(..., "x")`` (a name that
already exists, a link included, is an error rather than followed). Skill pages — markdown
rendering dominates the build — are written by forked worker processes when the catalog is
large and the platform can fork, while the main process builds the index and the catalog; the
output is byte-identical to a serial build (``jobs=1``).
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from exobrain.errors import UsageError
from exobrain.site.catalog_page import catalog_html, scopes_html
from exobrain.site.data import SiteData, normalise
from exobrain.site.layout import SiteModel, scope_path, skill_path
from exobrain.site.scope_page import scope_html
from exobrain.site.searchindex import build_index, index_js
from exobrain.site.skill_page import skill_html
from exobrain.util.progress import Progress
from exobrain.util.staging import staged_folder

MARKER = ".exobrain-site"
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
ASSET_FILES = ("site.css", "search.js", "catalog.js", "page.js")
PARALLEL_MIN_SKILLS = 300
CHUNK = 100

_JOB: tuple[SiteModel, Path] | None = None  # inherited by forked workers


def _check_target(out_dir: Path) -> bool:
    """True when ``out_dir`` holds an earlier build (to be replaced); a folder with other
    content, or a file, is refused."""
    if not out_dir.exists() and not out_dir.is_symlink():
        return False
    if out_dir.is_symlink() or not out_dir.is_dir():
        raise UsageError(
            f"{out_dir} exists and is not a folder", hint="choose a new or empty folder with -o"
        )
    if (out_dir / MARKER).is_file():
        return True
    if any(out_dir.iterdir()):
        raise UsageError(
            f"{out_dir} is not empty and holds no {MARKER} from an earlier build",
            hint="choose a new or empty folder with -o; exobrain site replaces only a "
            "folder it wrote",
        )
    return False


def _write(out_dir: Path, rel: str, text: str) -> str:
    path = out_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return rel


def _skill_pages(start: int, end: int) -> list[str]:
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
    progress: Progress | None = None,
    jobs: int | None = None,
) -> list[str]:
    """Write the static site for ``data`` into ``out_dir``; return the files written (POSIX
    paths relative to ``out_dir``, sorted; the marker is not listed).

    ``progress(stage, done, total)`` is called as skill pages are done. ``jobs``: worker
    processes for skill pages (default: the CPUs, at most 8, for catalogs of 300 skills or
    more where ``fork`` exists, else 1 = in this process).
    """
    out_dir = Path(os.path.abspath(out_dir))
    replace = _check_target(out_dir)
    cat = normalise(data)
    model = SiteModel.of(cat)
    with staged_folder(out_dir, root=out_dir.parent, replace=replace, empty_ok=True) as stage:
        written = _build(model, stage, progress, _jobs(jobs, len(cat.skills)))
    return sorted(written)


def _build(model: SiteModel, stage: Path, progress: Progress | None, n_jobs: int) -> list[str]:
    global _JOB
    cat = model.cat
    total = len(cat.skills)
    written: list[str] = []
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
        _write(stage, MARKER, "written by exobrain site; it replaces this folder on a rebuild\n")
        (stage / "assets").mkdir()
        for name in ASSET_FILES:
            shutil.copyfile(ASSETS_DIR / name, stage / "assets" / name)
            written.append(f"assets/{name}")
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
