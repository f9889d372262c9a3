"""The read-only substrate verbs knowledge skills call: ``get``, ``list`` and ``links``.

They read skills and knowledge documents through one :class:`~exobrain.search.corpus.View`, so they
see exactly what the connection sees (the chain; never another person's scope or private
``local/`` folder) and they never write anything but the search cache. Frontmatter comes from
the search index (refreshed first, so it is never stale): listing thousands of artifacts does
not parse thousands of YAML blocks.

An artifact row (the JSON every verb prints)::

    {"ref", "type", "name", "home", "owner", "lifecycle", "tier", "path", "version",
     "hash", "quality", "description", "content": {frontmatter}}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from exobrain.errors import UsageError
from exobrain.paths import shown
from exobrain.search.artifact import Artifact
from exobrain.search.corpus import TYPES, View, not_for_agent
from exobrain.search.docs import read_doc
from exobrain.search.engine import Searcher, guarded
from exobrain.skillmd import links_of, toolkit_field
from exobrain.util.jsonlogic import evaluate, sort_rows, truthy, variables
from exobrain.workspace import Workspace

#: SPEC-013's link predicates (``links.<predicate>`` in the frontmatter).
PREDICATES = ("uses_tool", "uses_skill", "derives_from", "documents_artifact", "supersedes")
SKILL_PREDICATES = ("uses_skill", "derives_from", "supersedes")
QualityFn = Callable[[list[str]], Mapping[str, float]]


#: The fields of a row (``content`` holds the frontmatter: any key may follow it).
ROW_FIELDS = (
    "ref",
    "type",
    "name",
    "home",
    "owner",
    "lifecycle",
    "tier",
    "path",
    "version",
    "hash",
    "quality",
    "description",
    "content",
)


def check_field(where: str, path: str) -> None:
    """Refuse a dotted path that names no field of a row."""
    top = path.split(".", 1)[0]
    if top not in ROW_FIELDS or (top != "content" and "." in path):
        raise UsageError(
            f"{where}: {path!r} is not a field of a row",
            hint=f"fields: {', '.join(ROW_FIELDS)} (content.KEY reads the frontmatter)",
        )


class Substrate:
    """One connection's read-only view with fresh frontmatter rows."""

    @guarded
    def __init__(
        self, ws: Workspace, quality: QualityFn | None = None, agent: str | None = None
    ) -> None:
        self.ws = ws
        self.searcher = Searcher(ws, semantic=False, agent=agent)
        self.view: View = self.searcher.view()
        self.quality = quality
        self._everywhere: View | None = None

    def find(self, text_ref: str) -> Artifact:
        """The artifact a reference names: in the chain first, else in every scope (what
        ``search --all-scopes`` lists is readable: the repository is readable by every member;
        only ``local/`` folders stay private). A skill its declaration keeps from this agent
        is not found."""
        try:
            return self.view.find(text_ref)
        except UsageError:
            if self._everywhere is None:
                self._everywhere = self.searcher.view(everywhere=True)
            return self._everywhere.find(text_ref)

    def rows(self, artifacts: list[Artifact]) -> list[dict[str, Any]]:
        """The rows of ``artifacts`` (index refreshed first; unreadable files are left out)."""
        index = self.searcher.index
        self.searcher.refresh(artifacts)
        indexed = index.rows(a.ref for a in artifacts)
        scores = self.quality([a.ref for a in artifacts]) if self.quality else {}
        rows = []
        for artifact in artifacts:
            row = indexed.get(artifact.ref)
            if row is not None:
                rows.append(
                    self._row(
                        artifact, row.description, row.meta, row.hash, scores.get(artifact.ref)
                    )
                )
        return rows

    def _row(
        self,
        a: Artifact,
        description: str,
        meta: dict[str, Any],
        digest: str | None,
        quality: float | None,
    ) -> dict[str, Any]:
        return {
            **a.fields(),
            "path": shown(a.path, self.ws.root) if a.path else None,
            "version": toolkit_field(meta, "version"),
            "hash": digest,
            "quality": None if quality is None else round(quality, 6),
            "description": description,
            "content": meta,
        }

    # --- verbs ----------------------------------------------------------------------------

    @guarded
    def get(self, text_ref: str) -> dict[str, Any]:
        """One artifact in full: its row, its body and its links both ways."""
        artifact = self.find(text_ref)
        if artifact.path is None:
            raise UsageError(
                f"{artifact.ref} is an external skill that is not installed here",
                hint="fetch-external-skills installs it",
            )
        rows = self.rows([artifact])
        if not rows:
            raise UsageError(
                f"{artifact.ref}: its file cannot be read",
                hint="skills-validate says what is wrong with it",
            )
        row = rows[0]
        row["body"] = read_doc(artifact).fields["instructions"]
        row["links"] = self.links(artifact.ref)
        return row

    @guarded
    def list(
        self,
        types: tuple[str, ...] = TYPES,
        rule: Any = None,
        sort: list[tuple[str, bool]] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Every visible artifact of ``types`` that passes ``rule``, sorted. A field the rows do
        not have, in the rule or the sort keys, is a usage error (a typo must not pass as "no
        match" or "unsorted")."""
        for where, path in [("--filter", v) for v in variables(rule)] + [
            ("--sort", key) for key, _ in sort or []
        ]:
            check_field(where, path)
        # what the view's agent may not use is not there for it (as in search and find)
        rows = self.rows([a for a in self.view.artifacts(types) if not not_for_agent(a)])
        if rule is not None:
            rows = [r for r in rows if truthy(evaluate(rule, r))]
        rows = sort_rows(rows, sort or [])
        return rows[:limit] if limit else rows

    @guarded
    def links(self, text_ref: str, predicate: str | None = None) -> dict[str, Any]:
        """Outgoing links of an artifact (as written, resolved when the target is visible) and
        incoming links from the visible artifacts, optionally one predicate only."""
        if predicate is not None and predicate not in PREDICATES:
            raise UsageError(f"--predicate {predicate!r}: use one of {', '.join(PREDICATES)}")
        artifact = self.find(text_ref)
        everything = [a for a in self.view.artifacts(TYPES) if not not_for_agent(a)]
        rows = {r["ref"]: r for r in self.rows(everything)}
        mine = rows.get(artifact.ref, {}).get("content", {})
        outgoing = []
        for name in PREDICATES if predicate is None else (predicate,):
            for target in _targets(mine, name):
                outgoing.append(
                    {
                        "predicate": name,
                        "target": target,
                        "ref": self._resolve(target) if name in SKILL_PREDICATES else None,
                    }
                )
        incoming = []
        for source in everything:
            if source.ref == artifact.ref or source.ref not in rows:
                continue
            for name in SKILL_PREDICATES if predicate is None else (predicate,):
                if name not in SKILL_PREDICATES:
                    continue
                for target in links_of(rows[source.ref]["content"], name):
                    if self._resolve(target) == artifact.ref:
                        incoming.append({"predicate": name, "source": source.ref})
        return {
            "ref": artifact.ref,
            "outgoing": outgoing,
            "incoming": sorted(incoming, key=lambda i: (i["predicate"], i["source"])),
        }

    def _resolve(self, target: str) -> str | None:
        """The visible skill a link names (the deepest of that name when no home is given)."""
        found = self.view.link_target(target)
        return found.ref if found else None


def _targets(meta: dict[str, Any], predicate: str) -> list[str]:
    if predicate in SKILL_PREDICATES:
        return links_of(meta, predicate)
    links = meta.get("links")
    items = links.get(predicate) if isinstance(links, dict) else None
    if items is None:
        return []
    values = items if isinstance(items, list) else [items]
    return [str(v.get("ref") if isinstance(v, dict) else v) for v in values]
