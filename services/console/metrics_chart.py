"""Small charts of a figure's last minutes, drawn server-side as SVG polylines: no chart
library, no script, and presentation attributes only (the console's CSP forbids style
attributes). An unknown value (a target down) breaks the line rather than drawing a zero.
"""

from __future__ import annotations

from typing import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT, PAD = 160, 32, 2


def sparkline(points: Sequence[tuple[float, float | None]], label: str, span: float = 600.0) -> Markup:
    """(time, value) oldest first, over the last ``span`` seconds, scaled from zero to the
    highest value seen."""
    if points:
        newest = points[-1][0]
        points = [(t, v) for t, v in points if newest - t <= span]
    known = [v for _, v in points if v is not None]
    top = max(known, default=0.0) or 1.0
    segments: list[list[str]] = [[]]
    for t, v in points:
        if v is None:
            if segments[-1]:
                segments.append([])
            continue
        x = PAD + (WIDTH - 2 * PAD) * (1 - (points[-1][0] - t) / span)
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v / top)
        segments[-1].append(f"{x:.1f},{y:.1f}")
    lines = "".join(
        f'<polyline points="{" ".join(s)}" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>' if len(s) > 1 else
        f'<circle cx="{s[0].split(",")[0]}" cy="{s[0].split(",")[1]}" r="1.5" fill="#1f5fa8"/>'
        for s in segments if s)
    words = f"{label}: the last {span / 60:.0f} minutes, highest {max(known):.3g}" if known else f"{label}: no data yet"
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" role="img" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-label="{escape(words)}"><title>{escape(words)}</title>'
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#999" '
        f'stroke-width="0.5"/>{lines}</svg>'
    )
