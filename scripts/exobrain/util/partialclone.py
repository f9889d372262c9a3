"""What a partial clone lacks, filled in without a round trip per object: which of the wanted
objects its store already holds, asked of a throwaway repository that borrows its objects (so
git fetches nothing to answer), and the fetch of the rest from the promisor remote in
parallel batches. :meth:`Repository.blobs <exobrain.util.repository.Repository.blobs>` uses
both before it reads anything.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

from exobrain.util.git import FETCH_OBJECTS, Git, git_message
from exobrain.util.progress import Progress

#: Object ids sent to the promisor remote per fetch (one round trip each).
FETCH_BATCH = 50_000
#: Batches fetched at once: each fetch keeps a core busy checking and indexing the pack it
#: receives, so on 2 cores two batches take about the time of one (a blob-less clone of
#: 100,000 people lacks 900,000 registries and SKILL.md files on its first catalog).
FETCH_PARALLEL = max(1, min(4, os.cpu_count() or 1))


def objects_held(objects: str, object_format: str, oids: list[str]) -> set[str]:
    """Which of ``oids`` the object store at ``objects`` (a repository's objects folder, of
    ``object_format``) holds. Asking the repository itself would make git fetch each missing
    object (or die, when it may not), so the question goes to a throwaway repository that
    borrows those objects (``alternates``) and has no remote."""
    scratch_git = Git(timeout=None)  # the environment's GIT_DIR and the like left out
    with tempfile.TemporaryDirectory(prefix="exobrain-objects-") as scratch:
        scratch_git.run(
            ["init", "-q", "--bare", "--template=", f"--object-format={object_format}", scratch]
        )
        Path(scratch, "objects", "info").mkdir(parents=True, exist_ok=True)
        Path(scratch, "objects", "info", "alternates").write_text(objects + "\n")
        stdin = "".join(f"{oid}\n" for oid in oids).encode()
        out = scratch_git.run(
            [f"--git-dir={scratch}", "cat-file", "--batch-check=%(objectname) %(objecttype)"],
            stdin=stdin,
        ).stdout.decode()
    return {
        oid
        for oid, _, kind in (line.partition(" ") for line in out.splitlines())
        if kind != "missing"
    }


def fetch_objects(
    root: Path,
    remote: str,
    oids: list[str],
    what: str,
    *,
    own_env: bool,
    progress: Progress | None = None,
) -> dict[str, str]:
    """Fetch ``oids`` from ``remote`` into the partial clone at ``root``, in batches, and
    return the ones that could not be fetched with why (``what`` names them in the reason).
    The first failure stops the batches not yet started; progress goes out as stage
    ``git-fetch`` (objects fetched so far)."""
    fetcher = Git(allow_file=True, own_env=own_env)  # the user's own remote
    args = [
        *FETCH_OBJECTS,
        "--filter=blob:none",
        "--stdin",
        "--",
        remote,
    ]
    # as few rounds of FETCH_PARALLEL fetches as batches of at most FETCH_BATCH allow,
    # the objects spread evenly over them (no round waits on one big batch)
    rounds = -(-len(oids) // (FETCH_PARALLEL * FETCH_BATCH))
    size = -(-len(oids) // (FETCH_PARALLEL * rounds))
    batches = [oids[start : start + size] for start in range(0, len(oids), size)]
    failed = threading.Event()
    fetched, counting = [0], threading.Lock()
    if progress is not None:
        progress("git-fetch", 0, len(oids))

    def fetch(batch: list[str]) -> str | None:
        """Why ``batch`` could not be fetched ("" when a failure before it stopped it),
        None when it was."""
        if failed.is_set():
            return ""
        stdin = "".join(o + "\n" for o in batch).encode()
        done = fetcher.run(args, cwd=root, remote=True, stdin=stdin, check=False)
        if done.returncode == 0:
            if progress is not None:
                with counting:
                    fetched[0] += len(batch)
                    progress("git-fetch", fetched[0], len(oids))
            return None
        failed.set()
        return f"fetching {what} from {remote} failed: {git_message(done.stderr)}"

    from concurrent.futures import ThreadPoolExecutor  # only a partial clone's fetch

    with ThreadPoolExecutor(min(FETCH_PARALLEL, len(batches))) as pool:
        reasons = list(pool.map(fetch, batches))
    first = next((reason for reason in reasons if reason), "")
    unread: dict[str, str] = {}
    for batch, reason in zip(batches, reasons, strict=True):
        if reason is not None:
            unread.update(dict.fromkeys(batch, reason or first))
    return unread
