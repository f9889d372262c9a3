"""Inline SVG: the 90-day sparkline, the quality bar and the signals chart.

All drawing uses SVG attributes and CSS classes only (no ``style`` attribute: the
pages' CSP forbids inline styles). Coordinates are integers to keep pages small.
"""

from __future__ import annotations

from collections.abc import Sequence

from exobrain.site.data import SignalPoint
from exobrain.site.text import esc

__all__ = ["bucket", "quality_bar", "signals_chart", "sparkline"]


def sparkline(values: Sequence[int], width: int = 90, height: int = 20) -> str:
    """A polyline of ``values`` (oldest first) scaled into ``width`` × ``height``."""
    n = len(values)
    peak = max(values) if values else 0
    total = sum(values)
    label = f"{total} uses in {n} days, peak {peak}/day"
    if n == 0 or peak == 0:
        pts = f"0,{height - 1} {max(n - 1, 1)},{height - 1}"
    else:
        scale = (height - 2) / peak
        pts = " ".join(f"{i},{height - 1 - round(v * scale)}" for i, v in enumerate(values))
    return (
        f'<svg class="spark" viewBox="0 0 {max(n - 1, 1)} {height}" width="{width}" '
        f'height="{height}" preserveAspectRatio="none" role="img" aria-label="{label}">'
        f'<polyline points="{pts}"/></svg>'
    )


def quality_bar(quality: float | None, width: int = 50, height: int = 8) -> str:
    """A small horizontal bar for a quality in [0, 1]; a hatched empty bar when unknown."""
    if quality is None:
        return (
            f'<svg class="qbar unknown" width="{width}" height="{height}" role="img" '
            f'aria-label="quality unknown"><rect width="{width}" height="{height}"/></svg>'
        )
    filled = round(max(0.0, min(1.0, quality)) * width)
    return (
        f'<svg class="qbar" width="{width}" height="{height}" role="img" '
        f'aria-label="quality {quality:.2f}"><rect class="bg" width="{width}" '
        f'height="{height}"/><rect class="fg" width="{filled}" height="{height}"/></svg>'
    )


def bucket(points: Sequence[SignalPoint], limit: int = 120) -> list[SignalPoint]:
    """Merge consecutive points so that at most ``limit`` remain (sums per bucket)."""
    if len(points) <= limit:
        return list(points)
    size = -(-len(points) // limit)
    out: list[SignalPoint] = []
    for i in range(0, len(points), size):
        chunk = points[i : i + size]
        out.append(
            {
                "date": str(chunk[0].get("date", "")),
                "up": sum(int(p.get("up", 0)) for p in chunk),
                "down": sum(int(p.get("down", 0)) for p in chunk),
                "uses": sum(int(p.get("uses", 0)) for p in chunk),
            }
        )
    return out


def signals_chart(points: Sequence[SignalPoint], width: int = 640) -> str:
    """Uses (bars, top panel) and votes (up above, down below a baseline) over time."""
    pts = bucket(points)
    if not pts:
        return '<p class="muted">No signals recorded.</p>'
    n = len(pts)
    left, right, top = 40, 8, 8
    uses_h, votes_h, gap = 80, 60, 22
    plot_w = width - left - right
    step = plot_w / n
    bar_w = min(24, max(1, int(step * 0.8)))
    max_uses = max(int(p.get("uses", 0)) for p in pts) or 1
    max_votes = max(max(int(p.get("up", 0)), int(p.get("down", 0))) for p in pts) or 1
    base_v = top + uses_h + gap + votes_h // 2
    parts: list[str] = []
    for i, p in enumerate(pts):
        x = left + int(i * step)
        u = round(int(p.get("uses", 0)) / max_uses * uses_h)
        up = round(int(p.get("up", 0)) / max_votes * (votes_h // 2))
        dn = round(int(p.get("down", 0)) / max_votes * (votes_h // 2))
        if not (u or up or dn):
            continue
        tip = esc(
            f"{p.get('date', '')}: {p.get('uses', 0)} uses, +{p.get('up', 0)}"
            f" / -{p.get('down', 0)} votes"
        )
        col = [f"<g><title>{tip}</title>"]
        if u:
            col.append(
                f'<rect class="uses" x="{x}" y="{top + uses_h - u}" width="{bar_w}" height="{u}"/>'
            )
        if up:
            col.append(
                f'<rect class="up" x="{x}" y="{base_v - up}" width="{bar_w}" height="{up}"/>'
            )
        if dn:
            col.append(f'<rect class="down" x="{x}" y="{base_v}" width="{bar_w}" height="{dn}"/>')
        parts.append("".join(col) + "</g>")
    height = top + uses_h + gap + votes_h + 20
    first, last = esc(pts[0].get("date", "")), esc(pts[-1].get("date", ""))
    axes = (
        f'<line class="axis" x1="{left}" y1="{top + uses_h}" x2="{width - right}" '
        f'y2="{top + uses_h}"/><line class="axis" x1="{left}" y1="{base_v}" '
        f'x2="{width - right}" y2="{base_v}"/>'
        f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{max_uses}</text>'
        f'<text x="{left - 4}" y="{top + uses_h}" text-anchor="end">0</text>'
        f'<text x="{left - 4}" y="{base_v - votes_h // 2 + 8}" '
        f'text-anchor="end">+{max_votes}</text>'
        f'<text x="{left - 4}" y="{base_v + votes_h // 2}" text-anchor="end">-{max_votes}</text>'
        f'<text x="{left}" y="{height - 4}">{first}</text>'
        f'<text x="{width - right}" y="{height - 4}" text-anchor="end">{last}</text>'
        f'<text x="{width - right}" y="{top + 8}" text-anchor="end">uses</text>'
        f'<text x="{width - right}" y="{base_v - votes_h // 2 + 8}" text-anchor="end">votes</text>'
    )
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="uses and votes over time from '
        f'{first} to {last}">{axes}{"".join(parts)}</svg>'
    )
