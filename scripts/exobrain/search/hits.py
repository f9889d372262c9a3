"""What one search hit is and how it is shown: its numbers, its JSON, how to opt into it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from exobrain.model import Reason
from exobrain.search.artifact import Artifact
from exobrain.search.ranking import Components
from exobrain.skillmd import one_line


@dataclass(frozen=True)
class Hit:
    artifact: Artifact
    description: str
    meta: dict[str, Any]
    components: Components
    content_hash: str = ""
    #: the refs of lower hits with the same content hash, folded into this one
    same_content: tuple[str, ...] = ()

    @property
    def score(self) -> float:
        return self.components.score


def opt_in_hint(artifact: Artifact) -> str | None:
    """How to turn a skill on for me, or why it cannot be; None when it is already on."""
    if artifact.type != "skill" or artifact.tier != "off":
        return None
    if artifact.successor:
        return f"superseded by {artifact.successor}: opt into that one instead"
    row = artifact.resolved
    reason = row.reason if row else None
    if artifact.lifecycle == "archived":
        return "archived: declare a successor instead"
    if reason in (Reason.DRAFT, Reason.DRAFT_OWNER_ONLY):
        return "draft: reaches only its owner until it is made active"
    if row is not None and reason is Reason.SUPERSEDED:
        return row.note
    if row is not None and reason is Reason.NOT_FOR_AGENT:
        return f"{row.note} (the declaration filters agents)"
    origin = "external" if artifact.home.startswith("external/") else artifact.home
    owner = f" --owner {artifact.owner}" if origin == "external" else ""
    return f"skills-promote {artifact.name} --from {origin}{owner} --to optional"


def hit_json(hit: Hit) -> dict[str, Any]:
    a = hit.artifact
    data = {
        **a.fields(),
        "description": one_line(hit.description, 200),
        "path": a.path.as_posix() if a.path else None,
        "score": round(hit.score, 6),
        "components": hit.components.as_json(),
    }
    hint = opt_in_hint(a)
    if hint:
        data["opt_in"] = hint
    if hit.same_content:
        data["same_content"] = list(hit.same_content)
    return data


def folded(hits: list[Hit]) -> list[Hit]:
    """``hits`` (best first) with each one whose content hash an earlier hit has folded
    into that one's ``same_content``: the same files imported twice are one answer."""
    first: dict[str, int] = {}
    kept: list[Hit] = []
    for hit in hits:
        at = first.get(hit.content_hash) if hit.content_hash else None
        if at is None:
            if hit.content_hash:
                first[hit.content_hash] = len(kept)
            kept.append(hit)
        else:
            prior = kept[at]
            kept[at] = replace(prior, same_content=(*prior.same_content, hit.artifact.ref))
    return kept
