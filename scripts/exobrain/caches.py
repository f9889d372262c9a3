"""Every cache and state folder the toolkit keeps, in one table: what it holds, what it is keyed
on, its format version, when it is rebuilt and what deleting it costs.

Each module that reads or writes one of them takes its folder name and version from here, so
they are named once and a reader cannot drift from the table (``knowledge/exobrain/state.md``
shows the same table; a test keeps the two equal). A cache is never a source of truth: any of
them may be deleted at any time, at the cost the table gives.

A cache file that is there but damaged (not readable as what it should hold, or of the wrong
shape) is ignored and made again, and :func:`damaged` notes it: caches are read deep inside
the families, far from any output, so the note waits here until whoever prints takes it
(:func:`take_damaged`: the command line's edge after each command, the MCP server after each
call, the usage hook into its log), one line per cache however many of its files were bad.
"""

from __future__ import annotations

from typing import NamedTuple

#: Where a folder lives: inside the repository (gitignored), or in the user's folders.
REPOSITORY, USER_CACHE, USER_STATE, USER_CONFIG = (
    "repository",
    "user cache",
    "user state",
    "user config",
)
#: The per-repository cache folder (gitignored, made with a ``.gitignore`` of ``*``).
REPO_CACHE = ".exobrain-cache"


class Cache(NamedTuple):
    """One folder of the table (``folder`` below ``.exobrain-cache/`` for the repository's,
    below ``$XDG_CACHE_HOME/exobrain`` and the like for the user's). A tuple, not a
    dataclass: the usage hook, which runs on every skill use, imports this module."""

    folder: str
    where: str
    holds: str
    key: str
    version: int
    rebuilt: str
    deleting: str


TREE = Cache(
    "tree",
    REPOSITORY,
    "what git's objects hold outside a sparse checkout: each unit's scopes, parsed "
    "registries, descriptions (64 shards per map)",
    "git tree id (units), blob id (registries, descriptions)",
    4,
    "a unit whose tree id changed is listed again; a bad shard is read again from git",
    "the next catalog or validate in a sparse clone reads every registry from git again",
)
COMMITTED = Cache(
    "committed",
    REPOSITORY,
    "readable copies of committed files outside a sparse checkout, for search",
    "git blob id of each file",
    1,
    "a copy whose blob changed is written again",
    "the next search copies them again",
)
CATALOG = Cache(
    "catalog",
    REPOSITORY,
    "the printed catalog: whole (a full checkout, `<key>.<variant>.txt`) or as rows to "
    "patch (a sparse checkout, `rows/<variant>.*`)",
    "a stat walk of every scope folder, or HEAD and the cone (rows)",
    5,
    "whole: when its key changes; rows: patched for what changed since their commit",
    "the next `skills-status --all` renders the catalog in full",
)
SEARCH = Cache(
    "search.sqlite",
    REPOSITORY,
    "the search index: every visible skill's text for BM25 (SQLite FTS5)",
    "each artifact's stat signature and content hash",
    3,
    "an artifact whose files changed is indexed again; another format is replaced",
    "the next search indexes every skill again",
)
EMBEDDINGS = Cache(
    "embeddings.sqlite",
    REPOSITORY,
    "the encoders' vectors of every indexed text",
    "the encoder's model and the text's hash",
    1,
    "a text that changed is embedded again",
    "the next search embeds every skill again (minutes for thousands)",
)
VECTORS = Cache(
    "vectors",
    REPOSITORY,
    "the vectors as one memory-mapped matrix per encoder, for fast queries",
    "the encoder, the index's token, its last row and generations",
    1,
    "when the embeddings change",
    "the next search writes it again from the embeddings",
)
INDEX_BUILD = Cache(
    "index",
    REPOSITORY,
    "the background index build's lock (`index.flock`) and its log (`index.log`)",
    "-",
    1,
    "each background build",
    "nothing",
)
INSTANCES = Cache(
    "instances",
    REPOSITORY,
    "instances fetched by `exobrain harvest` (bare clones)",
    "the instance's URL",
    1,
    "fetched again by each harvest",
    "the next harvest clones them again",
)
REPOS = Cache(
    "git",
    USER_CACHE,
    "one partial clone per external skill repository URL",
    "the repository URL",
    1,
    "fetched again when a branch moved (`git ls-remote`)",
    "the next fetch clones each repository again",
)
SIGNALS = Cache(
    "signals",
    USER_CACHE,
    "each repository's aggregated signals (marshal)",
    "the size, modification time and inode of every ledger that counts (a person's)",
    5,
    "when any ledger changes",
    "the next quality or search reads every ledger again",
)
BYTECODE = Cache(
    "pycache",
    USER_CACHE,
    "the compiled bytecode of an exobrain's own scripts/ while selftest runs its suite "
    "(`PYTHONPYCACHEPREFIX`; one you set is used instead), so the check writes nothing "
    "into the exobrain",
    "Python's own: each source file's path and modification time",
    1,
    "when a source file changes",
    "the next selftest compiles the scripts again (seconds per command its tests run)",
)
USAGE_HOOK = Cache(
    "usage-hook",
    USER_CACHE,
    "the usage hook's resolution of a connection, so a hook call stays fast",
    "the size, modification time and inode of every file it read",
    1,
    "when a registry or the connection changes",
    "the next skill use resolves again",
)
OWNED = Cache(
    "owned",
    USER_STATE,
    "connect-agent's records of the agent folders it made (outside the repository)",
    "the folder's path",
    1,
    "each connect",
    "connect-agent no longer removes the folders it made before: only links it can see",
)
USAGE_LOG = Cache(
    "usage-hook.log",
    USER_STATE,
    "the usage hook's log of what it could not record",
    "-",
    1,
    "appended to",
    "nothing",
)
LOCAL_SOURCES = Cache(
    "local-sources.json",
    USER_STATE,
    "where the skills imported from this machine's own folders, archives and repositories "
    "came from (a lock never names them)",
    "the repository's real path and the skill",
    1,
    "each import or update from a local source",
    "import --update of those skills asks for the source again (import --update NAME SOURCE)",
)
TRUST = Cache(
    "trust.json",
    USER_CONFIG,
    "the scope hooks and test suites this machine trusts, by content hash (`exobrain trust`)",
    "the hook's path and sha256; the repository's real path and the suite's digest",
    1,
    "by `exobrain trust`",
    "every scope hook and test suite is untrusted again (not run until trusted)",
)

TABLE: tuple[Cache, ...] = (
    TREE,
    COMMITTED,
    CATALOG,
    SEARCH,
    EMBEDDINGS,
    VECTORS,
    INDEX_BUILD,
    INSTANCES,
    REPOS,
    SIGNALS,
    BYTECODE,
    USAGE_HOOK,
    OWNED,
    USAGE_LOG,
    LOCAL_SOURCES,
    TRUST,
)


#: The damaged caches met since the last :func:`take_damaged`: cache folder → its note.
_damaged: dict[str, str] = {}


def damaged(cache: Cache, path: object, why: str) -> None:
    """Note that the cache file ``path`` was ignored because of ``why`` (it is made again);
    only the first file of each cache is named."""
    _damaged.setdefault(cache.folder, f"{path}: {why}; ignored, made again")


def take_damaged() -> list[str]:
    """The notes of :func:`damaged` since the last call, emptied."""
    notes = list(_damaged.values())
    _damaged.clear()
    return notes


def table_rows() -> list[list[str]]:
    """The table as the docs show it, one row per folder."""
    return [
        [f"`{c.folder}`", c.where, c.holds, c.key, str(c.version), c.rebuilt, c.deleting]
        for c in TABLE
    ]
