"""Display-name rules one at a time: what is refused says so in words a player reads, and the
key two look-alike names share is UTS #39's skeleton (tests/unit/test_account_names_corpus.py
has the red team's attacks)."""

from __future__ import annotations

import pytest

from services.accounts import lookalikes, names
from services.accounts.errors import InvalidRequest


def refusal(name: str) -> str:
    with pytest.raises(InvalidRequest) as caught:
        names.checked(name)
    return str(caught.value)


def key(name: str) -> str:
    return names.checked(name)[1]


def test_the_skeleton_maps_each_letter_to_unicodes_prototype():
    assert lookalikes.skeleton("\u0440\u0430\u0443\u0440\u0430l") == "paypal"
    assert lookalikes.skeleton("m") == "rn"
    assert lookalikes.skeleton("1I|") == "lll"


def test_a_name_mixing_latin_and_cyrillic_names_both_alphabets():
    assert refusal("\u0410lice5512") == "This name mixes alphabets (Cyrillic and Latin); use one"


def test_a_name_mixing_three_alphabets_names_all_three():
    assert refusal("Al\u03b9c\u0435 55") == "This name mixes alphabets (Latin, Greek and Cyrillic); use one"


def test_japanese_kanji_with_kana_and_latin_with_han_are_not_mixed():
    assert names.checked("\u7530\u4e2d\u3072\u308d\u3057")
    assert names.checked("Taro\u7530\u4e2d")


def test_hangul_with_cyrillic_is_mixed():
    assert refusal("\uae40\ucca0\u0410") == "This name mixes alphabets (Hangul and Cyrillic); use one"


def test_a_variation_selector_is_an_invisible_character():
    assert refusal("Alice5512\ufe0f") == "A name can't contain invisible characters"


def test_the_combining_grapheme_joiner_is_an_invisible_character():
    assert refusal("Al\u034fice5512") == "A name can't contain invisible characters"


@pytest.mark.parametrize("filler", ["\u3164", "\u115f", "\u1160", "\uffa0"])
def test_a_hangul_filler_is_an_invisible_character(filler):
    assert refusal(f"Kim{filler}99") == "A name can't contain invisible characters"


def test_the_braille_blank_is_an_invisible_character():
    assert refusal("\u2800\u2800\u2800") == "A name can't contain invisible characters"


def test_a_bidi_override_is_an_invisible_character():
    assert refusal("\u202eAlice5512") == "A name can't contain invisible characters"


def test_a_tab_is_a_control_character():
    assert refusal("tab\tname") == "A name can't contain tabs, line breaks or other control characters"


def test_an_unusual_space_is_refused_for_an_ordinary_one():
    assert refusal("Alice\u00a05512") == "A name can only use ordinary spaces"


def test_a_private_use_character_cannot_be_shown():
    assert refusal("Alice\ue000") == "A name can't contain characters that most devices cannot show"


def test_the_length_is_counted_for_a_person():
    assert refusal("ab") == refusal("a" * 21) == refusal("a" * 81) == "A name needs 3 to 20 characters"


def test_two_spaces_in_a_row_are_refused():
    assert refusal("two  spaces") == "A name can't have two spaces in a row"


def test_the_same_accent_twice_on_a_letter_is_refused():
    assert refusal("A\u0301\u0301lice") == "A name can't pile accents on one letter"


def test_three_accents_of_no_script_on_a_letter_are_refused():
    assert refusal("Ali\u0335\u0336\u0337ce") == "A name can't pile accents on one letter"


def test_vietnamese_and_devanagari_keep_the_marks_they_need():
    assert names.checked("Nguy\u1ec5n V\u0103n An")
    assert names.checked("\u0915\u093c\u0947\u0902\u0926\u094d\u0930")


def test_an_accent_without_a_letter_is_refused():
    assert refusal("\u0301Alice") == "A name can't have an accent without a letter under it"
    assert refusal("Al \u0301ice") == "A name can't have an accent without a letter under it"


def test_digits_from_two_systems_are_refused():
    assert refusal("\u0645\u062d\u0645\u062f\u06612") == "This name mixes digits from different alphabets; use one kind"


@pytest.mark.parametrize("name", ["b0t:greedy:1", "str0ng", "Bot Greedy 1", "expert 2", "random_bot", "BOTS", "GREEDY"])
def test_a_name_that_passes_for_a_bot_on_its_skeleton_is_refused(name):
    assert refusal(name) == "This name looks like a bot's"


@pytest.mark.parametrize("name", ["Robot5512", "Greedy Gus", "botanist", "Strongman"])
def test_a_name_that_only_contains_a_bot_word_is_accepted(name):
    assert names.checked(name)


def test_case_digits_and_letters_drawn_alike_share_a_key():
    assert key("Alice5512") == key("ALICE5512") == key("A1ice5512") == key("AIice5512") == key("Al|ce55I2")


def test_a_whole_cyrillic_look_alike_shares_the_latin_names_key():
    assert key("\u0410\u04cf\u0456\u0441\u0435") == key("Alice")


def test_cyrillic_capitals_are_compared_before_case_is_folded():
    assert key("\u041c\u0410\u0420\u041a\u0421") == key("MAPKC")  # Cyrillic small м is no Latin m


def test_fullwidth_and_mathematical_forms_share_the_plain_key():
    assert key("\uff21\uff4c\uff49\uff43\uff45") == key("\U0001d400\U0001d425\U0001d422\U0001d41c\U0001d41e") == key("Alice")


def test_a_dot_above_a_dotless_i_is_the_dot_of_an_i():
    assert key("Al\u0131\u0307ce") == key("Alice")


def test_the_key_checked_returns_is_key_of_the_shown_name():
    shown, stored = names.checked("  Zo\u00eb Lookalike ")
    assert stored == names.key_of(shown)


def test_no_message_names_a_code_point_or_a_field():
    messages = {refusal(name) for name in ["ab", "Alice5512\ufe0f", "tab\tname", "Alice\u00a05512", "Alice\ue000",
                                           "two  spaces", "A\u0301\u0301lice", "\u0301Alice", "\u0410lice5512",
                                           "\u0645\u062d\u0645\u062f\u06612", "bot:greedy"]}
    assert len(messages) == 11
    assert not [m for m in messages if "U+" in m or "display_name" in m]


def test_a_made_up_name_is_accepted():
    assert names.checked(names.made_up())
