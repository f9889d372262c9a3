"""``exobrain show REF``: everything known about one skill."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    repo_option,
    version_option,
)
from exobrain.util.terminal import json_text

INCOMING = {"supersedes": "superseded by", "derives_from": "derived by", "uses_skill": "used by"}


@click.command("show", context_settings=HELP, epilog=exit_codes())
@click.argument("ref", metavar="REF")
@version_option
@json_option
@repo_option
@command_edge
def command(ref: str, as_json: bool, repo: Path | None) -> None:
    """Show one skill: every frontmatter field, home, declarations and overrides, how it
    resolves for you, version and lock state (fresh, stale or missing), quality and its
    components, lifecycle, links both ways and the comments, as a thread. REF is
    skill:NAME[@HOME]."""
    from exobrain.artifacts.show import describe_skill
    from exobrain.signals.aggregate import aggregate
    from exobrain.signals.quality import load_weights, quality
    from exobrain.signals.view import skill_thread
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    facts = describe_skill(ws, ref)
    score = quality(aggregate(ws), facts["ref"], load_weights(ws.root), time.time())
    facts["quality"] = {"score": round(score.score, 6), "components": score.as_json()["components"]}
    facts["comments"] = skill_thread(ws, facts["ref"])
    if as_json:
        emit_json(facts)
    else:
        _render(facts)
    finish_read(ws)


def _render(facts: dict[str, Any]) -> None:
    """The report, one line per fact: each holds values from files, so each goes through
    the one output filter (:func:`~exobrain.cli.edge.echo_line`)."""
    echo_line(f"{facts['ref']}  (owner {facts['owner']}, lifecycle {facts['lifecycle']})")
    if facts.get("path"):
        echo_line(f"  path:        {facts['path']}")
    if facts.get("source"):
        source = facts["source"]
        echo_line(f"  source:      {source['repo']} {source['path']} @ {source['ref']}")
    echo_line(f"  version:     {facts.get('version') or '-'}")
    lock = facts["lock"]
    detail = f" ({lock['detail']})" if lock.get("detail") else ""
    echo_line(f"  lock:        {lock['state']}{detail}")
    resolved = facts["resolved"]
    note = f" ({resolved['note']})" if resolved["note"] else ""
    echo_line(f"  for you:     {resolved['tier']}{note}, decided by {resolved['decided_by']}")
    score = facts["quality"]
    parts = ", ".join(f"{k} {v:.2f}" for k, v in score["components"].items())
    echo_line(f"  quality:     {score['score']:.3f} ({parts})")
    for label, key in (("declared", "declarations"), ("override", "overrides")):
        for item in facts[key]:
            extra = "".join(
                f" {k}={v}" for k, v in item.items() if k not in ("registry", "index", "tier")
            )
            echo_line(
                f"  {label + ':':12} {item['registry']} #{item['index']} tier={item['tier']}{extra}"
            )
    for predicate, refs in facts["links"].items():
        echo_line(f"  {predicate}: {', '.join(map(str, refs))}")
    for predicate, refs in facts["linked_from"].items():
        echo_line(f"  {INCOMING[predicate]}: {', '.join(refs)}")
    if facts["frontmatter"]:
        echo_line("  frontmatter:")
    for key, value in facts["frontmatter"].items():
        text = value if isinstance(value, str) else json_text(value, indent=None)
        echo_line(f"    {key}: {' '.join(str(text).split())}")
    if facts["comments"]:
        echo_line(f"  comments ({len(facts['comments'])}):")
    for comment in facts["comments"]:
        indent = "  " * (2 + comment["depth"])
        text = " ".join(comment["text"].split())
        echo_line(f"{indent}[{comment['id']}] {comment['by']} {comment['ts'][:10]}: {text}")
