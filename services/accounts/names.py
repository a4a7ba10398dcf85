"""Display names: what other players see, so each must be readable, unique and honest.

A name may look like another only if it is that name. So two names are one when their
keys are equal (`key_of`): NFKC, then UTS #39's confusable skeleton folded for case
(lookalikes.py), so `Ａlice`, `ALICE`, `A1ice` and Cyrillic-only look-alikes collide and the
store says "taken". A name that could pass for another without colliding is refused: one
that hides characters (controls, format and other default-ignorable characters such as
variation selectors and the combining grapheme joiner, Hangul fillers, the Braille blank),
piles accents on a letter, mixes alphabets (UTS #39's Highly Restrictive level: Latin with
Cyrillic is refused, Japanese's kanji with kana is not) or kinds of digits, or passes for a
bot (`bot:`, the word `bot`, a strength's name, judged on the key so `b0t` and `str0ng`
count). Every message is shown to the player as it is.
"""

from __future__ import annotations

import re
import secrets
import unicodedata

from services.common.bot_ids import PREFIX, STRENGTHS

from . import lookalikes
from .errors import InvalidRequest

MIN_LENGTH, MAX_LENGTH = 3, 20
KEY_VERSION = "uts39-skeleton-1"  # `key_of`'s: a store holding keys of another version rewrites them at start
MAX_MARKS = 4  # marks on one letter: Tibetan's stacks and Devanagari's signs use up to 4
MAX_SHARED_MARKS = 2  # of them the accents every script may use (Vietnamese's ệ has 2)
_UNSHOWABLE = {"Cs", "Co", "Cn"}
_INVISIBLE_CATEGORIES = {"Cf", "Zl", "Zp"}
#: Default-ignorable code points that are not format characters (DerivedCoreProperties.txt,
#: Unicode 15.1; Python's unicodedata does not carry the property), and characters that draw
#: nothing in most fonts.
_INVISIBLE = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0,
                        *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0),
                        0x2800, 0xFFFC, 0x16FE4, 0x1D159])
_DOT_ABOVE_A_DOTTED_LETTER = re.compile("(?<=[ij])\u0307")
_WORDS = re.compile(r"[^\W_]+")
_ROUNDS = 4


def _fold(text: str) -> str:
    """Case folded the way look-alikes need: a capital I is drawn as a small l in most fonts,
    and folds to i, so i and l are one letter in a key (`Bili` and `Bill` collide); a dot
    above an i or j is the dot it already has."""
    return _DOT_ABOVE_A_DOTTED_LETTER.sub("", text.casefold()).replace("i", "l")


def key_of(name: str) -> str:
    """The form two names are compared in: equal keys, one name. A pure function of the
    name, so stored keys can be recomputed whenever it changes. The skeleton is taken before
    case is folded as well as after (a Cyrillic `М` looks like `M`, its small `м` like no
    Latin letter), until nothing changes."""
    key = unicodedata.normalize("NFKC", name)
    for _ in range(_ROUNDS):
        folded = _fold(lookalikes.skeleton(key))
        if folded == key:
            break
        key = folded
    return key


_BOT_WORDS = frozenset(key_of(word) for word in ("bot", "bots"))
_STRENGTH_WORDS = frozenset(key_of(word) for word in STRENGTHS)
_BOT_PREFIX = key_of(PREFIX)


def checked(name: str) -> tuple[str, str]:
    """(the name as shown, its key); InvalidRequest says, in words for the player, what is
    wrong."""
    length = f"A name needs {MIN_LENGTH} to {MAX_LENGTH} characters"
    if len(name) > 4 * MAX_LENGTH:
        raise InvalidRequest(length, "display_name")
    shown = unicodedata.normalize("NFC", name.strip(" "))
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise InvalidRequest(length, "display_name")
    _refuse_hidden_characters(shown)
    if "  " in shown:
        raise InvalidRequest("A name can't have two spaces in a row", "display_name")
    _refuse_piled_marks(shown)
    compatible = unicodedata.normalize("NFKC", shown)
    mixed = lookalikes.mixes_scripts(compatible)
    if mixed:
        named = [lookalikes.script_name(script) for script in mixed]
        raise InvalidRequest(f"This name mixes alphabets ({', '.join(named[:-1])} and {named[-1]}); use one", "display_name")
    if lookalikes.mixes_digits(compatible):
        raise InvalidRequest("This name mixes digits from different alphabets; use one kind", "display_name")
    key = key_of(shown)
    if _passes_for_a_bot(compatible, key):
        raise InvalidRequest("This name looks like a bot's", "display_name")
    return shown, key


def _refuse_hidden_characters(shown: str) -> None:
    for ch in shown:
        category = unicodedata.category(ch)
        if category == "Cc":
            raise InvalidRequest("A name can't contain tabs, line breaks or other control characters", "display_name")
        if category in _UNSHOWABLE:
            raise InvalidRequest("A name can't contain characters that most devices cannot show", "display_name")
        if category in _INVISIBLE_CATEGORIES or ord(ch) in _INVISIBLE:
            raise InvalidRequest("A name can't contain invisible characters", "display_name")
        if category == "Zs" and ch != " ":
            raise InvalidRequest("A name can only use ordinary spaces", "display_name")


def _refuse_piled_marks(shown: str) -> None:
    """Zalgo text, and the same accent twice (drawn once, so two names look alike). A
    script's own marks may stack as the script needs; the combining accents any script may
    take (U+0300 on) only as far as a language uses them."""
    run = shared = 0
    previous = ""
    for ch in unicodedata.normalize("NFD", shown):
        if not unicodedata.category(ch).startswith("M"):
            run, shared, previous = 0, 0, ch
            continue
        if not previous or previous == " ":
            raise InvalidRequest("A name can't have an accent without a letter under it", "display_name")
        run += 1
        shared += lookalikes.is_shared_mark(ch)
        if run > MAX_MARKS or shared > MAX_SHARED_MARKS or ch == previous:
            raise InvalidRequest("A name can't pile accents on one letter", "display_name")
        previous = ch


def _passes_for_a_bot(compatible: str, key: str) -> bool:
    """Bots are shown as `bot greedy 1` and `bot:strong`: a name may not start as their ids
    do, contain the word bot, or be made of strengths' names and numbers."""
    words = [(word, key_of(word)) for word in _WORDS.findall(compatible)]
    if key.startswith(_BOT_PREFIX) or any(keyed in _BOT_WORDS for _, keyed in words):
        return True
    strengths = [keyed for _, keyed in words if keyed in _STRENGTH_WORDS]
    return bool(strengths) and all(keyed in _STRENGTH_WORDS or word.isdecimal() for word, keyed in words)


def made_up() -> str:
    """A name for a new account that brought none (`player-7k2mq`): never a bot's, and
    changed with SetDisplayName."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "player-" + "".join(secrets.choice(alphabet) for _ in range(6))
