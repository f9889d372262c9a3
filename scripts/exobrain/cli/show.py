"""``exobrain show REF``: everything known about one skill."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import command_edge, emit_json, finish_read, json_option, repo_option


@click.command("show")
@click.argument("ref")
@json_option
@repo_option
@command_edge
def command(ref: str, as_json: bool, repo: Path | None) -> None:
    """Show one skill: frontmatter, home, declarations and overrides, how it resolves for you,
    version and lock state, lifecycle, links both ways and the comments, as a thread.
    REF is skill:NAME[@HOME]."""
    from exobrain.artifacts.show import describe_skill
    from exobrain.signals.comments import thread
    from exobrain.signals.view import skill_lines
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    facts = describe_skill(ws, ref)
    facts["comments"] = thread(skill_lines(ws.root, facts["ref"])[0])
    if as_json:
        emit_json(facts)
        finish_read(ws)
    click.echo(f"{facts['ref']}  (owner {facts['owner']}, lifecycle {facts['lifecycle']})")
    if facts.get("path"):
        click.echo(f"  path:      {facts['path']}")
    if facts.get("source"):
        source = facts["source"]
        click.echo(f"  source:    {source['repo']} {source['path']} @ {source['ref']}")
    click.echo(f"  version:   {facts.get('version') or '-'}")
    resolved = facts["resolved"]
    note = f" ({resolved['note']})" if resolved["note"] else ""
    click.echo(f"  for you:   {resolved['tier']}{note}, decided by {resolved['decided_by']}")
    for label, key in (("declared", "declarations"), ("override", "overrides")):
        for item in facts[key]:
            extra = "".join(
                f" {k}={v}" for k, v in item.items() if k not in ("registry", "index", "tier")
            )
            click.echo(
                f"  {label + ':':10} {item['registry']} #{item['index']} tier={item['tier']}{extra}"
            )
    for predicate, refs in facts["links"].items():
        click.echo(f"  {predicate}: {', '.join(map(str, refs))}")
    incoming = {
        "supersedes": "superseded by",
        "derives_from": "derived by",
        "uses_skill": "used by",
    }
    for predicate, refs in facts["linked_from"].items():
        click.echo(f"  {incoming[predicate]}: {', '.join(refs)}")
    description = facts["frontmatter"].get("description")
    if description:
        click.echo(f"  description: {' '.join(str(description).split())}")
    if facts["comments"]:
        click.echo(f"  comments ({len(facts['comments'])}):")
    for comment in facts["comments"]:
        indent = "  " * (2 + comment["depth"])
        text = " ".join(comment["text"].split())
        click.echo(f"{indent}[{comment['id']}] {comment['by']} {comment['ts'][:10]}: {text}")
    finish_read(ws)
