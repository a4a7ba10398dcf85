"""The red team's look-alike and invisible display names (issue 34), rebuilt by category:
each attack names the real name it imitates, and must be refused or collide with that name's
key (so the store says "taken"); an attack on no real name (a bot's, a blank one) must be
refused. Real names in many scripts stay accepted and distinct."""

from __future__ import annotations

import itertools

import pytest

from services.accounts import names
from services.accounts.errors import InvalidRequest

REAL = "Alice5512"

ATTACKS: list[tuple[str, str | None]] = [
    # variation selectors and other default-ignorable characters
    (REAL + "\ufe0f", REAL), (REAL + "\ufe0e", REAL), ("Ali\ufe00ce5512", REAL), (REAL + "\U000e0100", REAL),
    ("Al\u034fice5512", REAL), ("Alice\u200b5512", REAL), ("Ali\u200cce5512", REAL), ("Ali\u200dce5512", REAL),
    ("\u2060" + REAL, REAL), (REAL + "\ufeff", REAL), ("Ali\u00adce5512", REAL), ("Alice\u180e5512", REAL),
    ("Alice\u180b5512", REAL), (REAL + "\U000e0041", REAL), ("Alice\u20625512", REAL), ("Alice\u17b45512", REAL),
    # bidi controls
    ("\u202e" + REAL, REAL), ("Alice\u202d5512", REAL), ("\u200f" + REAL, REAL), ("\u2066" + REAL + "\u2069", REAL),
    ("Alice\u061c5512", REAL),
    # Hangul fillers, the Braille blank and other blank-rendering characters
    (REAL + "\u3164", REAL), ("\u115f" + REAL, REAL), ("Alice\u11605512", REAL), (REAL + "\uffa0", REAL),
    ("\u3164\u3164\u3164", None), ("\uffa0\uffa0\uffa0", None), ("\u2800\u2800\u2800", None),
    ("Alice\u28005512", REAL), ("Alice\ufffc5512", REAL), ("\U0001d159\U0001d159\U0001d159", None),
    ("Alice\u30005512", "Alice 5512"), ("Alice\u00a05512", "Alice 5512"), ("Alice\u20035512", "Alice 5512"),
    ("Alice\u16805512", "Alice-5512"), ("Alice\u20285512", "Alice 5512"), ("Alice\t5512", "Alice 5512"),
    ("Alice\n5512", "Alice 5512"), ("Alice  5512", "Alice 5512"), ("  " + REAL + " ", REAL),
    # Cyrillic, Greek, Armenian and Cherokee letters in a Latin name
    ("\u0410lice5512", REAL), ("Alic\u04355512", REAL), ("Al\u0456ce5512", REAL), ("Ali\u0441e5512", REAL),
    ("\u0391lice5512", REAL), ("Al\u03b9ce5512", REAL), ("\u0392ob5512", "Bob5512"), ("B\u0585b5512", "Bob5512"),
    ("Bo\u0570n5512", "Bohn5512"), ("\u13aalice5512", REAL),
    # whole-script look-alikes: no mixing, the skeleton collides
    ("\u0410\u04cf\u0456\u0441\u0435", "Alice"), ("\u0440\u0430\u0443\u0440\u0430\u04cf", "paypal"),
    ("\u03a4\u039f\u039c", "TOM"), ("\u0570\u0585\u057d", "hou"), ("\u13aa\u13de\u13ac", "ALE"),
    ("\u0421\u0410\u0422", "CAT"),
    # passing for a bot, with look-alikes
    ("greedy b\u043et", None), ("b\u043et:greedy:1", None), ("b0t:greedy:1", None), ("Bot Greedy 1", None),
    ("bot_strong", None), ("str0ng", None), ("GREEDY", None), ("\u0435\u0445\u0440\u0435rt", None),
    ("r\u0430ndom", None), ("expert 2", None), ("random_bot", None), ("BOTS", None), ("\u0455trong", None),
    ("Greedy B0T", None), ("\u0392\u039f\u03a4", None), ("bot:strong", None),
    # digits and letters UTS #39 finds confusable: l, 1 and I; 0 and O
    ("A1ice5512", REAL), ("AIice5512", REAL), ("Alice55I2", REAL), ("Alice551l", "Alice5511"),
    ("B0b5512", "Bob5512"), ("BOB5512", "Bob5512"), ("Al|ce5512", REAL), ("ALICE5512", REAL),
    ("rnike5512", "mike5512"), ("Alice\u0665\u066512", REAL), ("B\u09e6b5512", "Bob5512"),
    ("\u0645\u062d\u0645\u062f\u06612", "\u0645\u062d\u0645\u062f12"),
    # fullwidth and other compatibility forms
    ("\uff21\uff4c\uff49\uff43\uff45" + "5512", REAL), ("\uff41\uff4c\uff49\uff43\uff45\uff15\uff15\uff11\uff12", REAL),
    ("Alice\U0001d7d3\U0001d7d3\U0001d7cf\U0001d7d0", REAL), ("\U0001d400\U0001d425\U0001d422\U0001d41c\U0001d41e5512", REAL),
    ("\u24d0lice5512", REAL), ("\u216cisa5512", "Lisa5512"),
    # stacked combining marks, and dots a letter already has
    ("A\u0301\u0301lice5512", "A\u0301lice5512"), ("Ali\u0335\u0336\u0337ce5512", REAL),
    ("Z\u0335\u0321\u0322\u031b\u0316a\u0336l\u0338g\u0337o\u0336", "Zalgo"), ("Alice551" + "2" + "\u0300" * 5, REAL),
    ("\u0301" + REAL, REAL), ("Al\u0131\u0307ce5512", REAL), ("Ali\u0307ce5512", REAL),
]

LEGITIMATE = [
    "\u0410\u043b\u0438\u0441\u0430", "\u0422\u0438\u043c\u0443\u0440", "\u0396\u03c9\u03ae", "\u03a3\u03bf\u03c6\u03af\u03b1",
    "\u0395\u03bb\u03ad\u03bd\u03b7", "\u7530\u4e2d\u3072\u308d\u3057", "\u3084\u307e\u3060", "\u30ab\u30bf\u30ab\u30ca",
    "\u65e5\u672c\u8a9e\u30e6\u30fc\u30b6\u30fc", "\u738b\u5c0f\u660e", "\u6b27\u9633\u5a1c", "\u0645\u062d\u0645\u062f",
    "\u0641\u0627\u0637\u0645\u0629", "\u05d3\u05d5\u05d3", "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",
    "\uae40\ucca0\uc218", "\uc774\uc601\ud76c", "\u0905\u0928\u0941\u0930\u093e\u0927\u093e",
    "\u092a\u094d\u0930\u093f\u092f\u093e", "\u0915\u093c\u0947\u0902\u0926\u094d\u0930", "Jos\u00e9", "Zo\u00eb",
    "Ram\u00edrez", "Nguy\u1ec5n V\u0103n An", "\u0141ukasz", "S\u00f8ren", "\u00c6var", "\u0130smail",
    REAL, "Bob_the-3rd", "mary-jane", "Anna Marie", "DJ 42", "Taro\u7530\u4e2d", "Miyuki\u96ea",
    "\u10e5\u10d4\u10d7\u10d8", "\u0531\u0574\u0561\u056c\u0575\u0561", "\u0e2a\u0e21\u0e0a\u0e32\u0e22",
    "\u0f66\u0f92\u0fb2\u0f74\u0f56", "Robot5512", "Bill", "player-7k2mq", "Greedy Gus",
]


def refused_or_key(name: str) -> str | None:
    try:
        return names.checked(name)[1]
    except InvalidRequest:
        return None


def test_the_corpus_covers_at_least_sixty_attacks():
    assert len(ATTACKS) >= 60


@pytest.mark.parametrize("attack, real", ATTACKS)
def test_a_look_alike_is_refused_or_collides_with_the_name_it_imitates(attack, real):
    key = refused_or_key(attack)
    if real is None:
        assert key is None, f"{attack!r} was accepted"
    else:
        assert key is None or key == names.checked(real)[1], f"{attack!r} is accepted beside {real!r}"


@pytest.mark.parametrize("name", LEGITIMATE)
def test_a_legitimate_name_is_accepted(name):
    shown, _ = names.checked(name)
    assert shown == name


def test_legitimate_names_stay_distinct():
    keys = {name: names.checked(name)[1] for name in LEGITIMATE}
    same = [(a, b) for a, b in itertools.combinations(LEGITIMATE, 2) if keys[a] == keys[b]]
    assert same == []
