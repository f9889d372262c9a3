"""Git repositories as import sources, read through the fetcher's cache.

The URL, path and ref pass the fetcher's checks (:mod:`exobrain.fetch.remote`: plain transports
only, ``file://`` and local paths only when allowed), the ref is resolved with one
``ls-remote`` (a full commit id is used as it is), and only the tree at ``path`` is fetched into
the shared cache and written to a temporary folder — the same partial-clone machinery and size
cap as ``fetch-external-skills``, so importing from a repository the fetcher already knows
costs no second clone.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterator

from exobrain.errors import OperationFailed
from exobrain.interop.inputs import GIT, Opened


@contextmanager
def open_git(url: str, path: str, ref: str | None, *, root: Path,
             allow_local: bool | None = None) -> Iterator[Opened]:
    """Materialise ``path`` of ``url`` at ``ref`` (default HEAD) into a temporary folder."""
    from exobrain.fetch.remote import check_path, check_ref, check_repo, is_full_sha
    from exobrain.fetch.fetcher import fetch_settings
    from exobrain.fetch.repocache import Git, RepoCache, default_cache_root, pick_ref
    from exobrain.fetch.materialise import materialise
    from exobrain.scopes import read_connection

    settings = fetch_settings(read_connection(root))
    allow = settings.allow_local if allow_local is None else allow_local
    git_url, _ = check_repo(url, allow_local=allow, root=root)
    inside = check_path(path or ".")
    wanted = check_ref(ref or "HEAD")
    cache = RepoCache(Git(allow_file=allow), default_cache_root(), git_url)
    if is_full_sha(wanted):
        commit = wanted
    else:
        info = pick_ref(cache.ls_remote([wanted]), wanted)
        if info is None:
            raise OperationFailed(f"{url} has no branch or tag {wanted!r}",
                                  hint="use a branch, a tag or a full commit id with --ref")
        commit = info.commit
    temp = Path(tempfile.mkdtemp(prefix="exobrain-import-"))
    try:
        name = PurePosixPath(inside).name if inside != "." else \
            PurePosixPath(url.rstrip("/")).name.removesuffix(".git") or "skill"
        folder = temp / name
        folder.mkdir()
        with cache.locked():
            cache.ensure_commit(commit)
            tree = cache.tree_at(commit, inside)
            cache.ensure_complete(tree, settings.max_bytes)
            materialise(cache, tree, folder, settings.max_bytes)
        yield Opened(GIT, url, folder, "" if inside == "." else inside, ref, commit)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
