"""How a tile looks: each number in its pip colour; and a count of pips in words."""

from __future__ import annotations

from rich.text import Text

from .view_reading import Tile

PIP_STYLES = {0: "white", 1: "red", 2: "yellow", 3: "green", 4: "cyan", 5: "bright_blue", 6: "magenta"}


def tile_text(tile: Tile, style: str = "") -> Text:
    """[6|4] with each half in its pip colour."""
    text = Text()  # Text("[", style=...) would make that style the whole tile's base style
    text.append("[", style=style or "dim")
    text.append(str(tile[0]), style=f"bold {PIP_STYLES[tile[0]]}" if not style else style)
    text.append("|", style=style or "dim")
    text.append(str(tile[1]), style=f"bold {PIP_STYLES[tile[1]]}" if not style else style)
    text.append("]", style=style or "dim")
    return text


def end_text(pips: int | None) -> Text:
    """An open end, highlighted in its pip colour (None: not open)."""
    if pips is None:
        return Text(" - ", style="dim")
    return Text(f" {pips} ", style=f"bold black on {PIP_STYLES[pips]}")


def pip_count(count: int) -> str:
    """``1 pip``, ``0 pips``, ``12 pips``: a hand's value as the screens say it."""
    return f"{count} pip" if count == 1 else f"{count} pips"
