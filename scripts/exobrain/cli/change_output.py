"""How a move or a removal shows what it changed (``exobrain move``, ``exobrain remove``)."""

from __future__ import annotations

import click

from exobrain.artifacts.move import Change


def echo_change(change: Change) -> None:
    """The files, overrides and links a move or a removal touched (or would), one per line."""
    for line in change.files:
        click.echo(f"  changed: {line}")
    for line in change.overrides:
        click.echo(f"  override {line}")
    for line in change.links:
        click.echo(f"  note: {line} still names {change.ref} in its SKILL.md links")
