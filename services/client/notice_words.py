"""The client's own words for the inbox's notifications.

A notification carries a localisation key and its arguments (ids, display names, numbers),
never a sentence: each app says it in its own language. This is the terminal's English. A
key it does not know (a newer server's) gets a generic line, never the raw arguments; an
argument missing from a known key is shown as "?"; a player named by id alone is shown by
their display name (names.py)."""

from __future__ import annotations

from domino.social.v1 import social_service_pb2 as so

from . import families, names

#: key -> the line, with the key's arguments in braces; {name}: the player it is about.
WORDS = {
    "notice.friend_request": "{name} wants to be your friend",
    "notice.friend_accepted": "{name} accepted your friend request",
    "notice.invite": "{name} invites you to a room",
    "notice.invite_answered": "{name} {answer} your invite",
    "notice.invite_accepted": "{name} accepted your invite",
    "notice.invite_declined": "{name} declined your invite",
    "notice.rematch": "{name} wants to play again",
    "notice.your_turn": "Your turn: {seconds_left} s left",
    "notice.match_won": "You won the match, {points} to {opponent_points}",
    "notice.match_lost": "You lost the match, {points} to {opponent_points}",
    "notice.rating_change": "Your rating went from {before} to {after}",
    "notice.banned": "Your account is banned {until}",
    "notice.unbanned": "Your account is no longer banned",
}
#: The same when the notification names the family played ("rules", and "variant"): {game}.
GAME_WORDS = {
    "notice.invite": "{name} invites you to play {game}",
    "notice.rematch": "{name} wants to play {game} again",
}
#: notice.account.<what>
ACCOUNT = {
    "device_added": "A new device signed in to your account",
    "identity_linked": "An identity was linked to your account",
    "identity_unlinked": "An identity was unlinked from your account",
    "display_name_changed": "Your display name was changed",
    "signed_out_everywhere": "Your account was signed out everywhere",
}
ACCOUNT_OTHER = "Something changed in your account"
UNKNOWN = "A notice this client cannot show (update domino to read it)"
#: Arguments said in words rather than as sent.
ANSWERS = {"accepted": "accepted", "declined": "declined"}
#: Kinds whose key names the outcome by an argument ("outcome": won|lost) instead.
RESULT_KEYS = {"won": "notice.match_won", "lost": "notice.match_lost"}


class _Args(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def who(notice: so.Notification) -> str:
    """The player it is about: the name it carries, else theirs as the directory knows it."""
    return (notice.args.get("name") or notice.args.get("display_name")
            or (names.name(notice.player_id) if notice.player_id else "Someone"))


def text(notice: so.Notification) -> str:
    """The notification in words."""
    key = notice.text_key
    args = _Args(notice.args)
    if key == "notice.match_result":
        key = RESULT_KEYS.get(args.get("outcome", ""), key)
    if key.startswith("notice.account."):
        return ACCOUNT.get(key.removeprefix("notice.account."), ACCOUNT_OTHER)
    if key == "notice.account":
        return ACCOUNT.get(args.get("what", ""), ACCOUNT_OTHER)
    words = WORDS.get(key)
    if words is None:
        return UNKNOWN
    if args.get("rules") and key in GAME_WORDS:
        words = GAME_WORDS[key]
        args["game"] = families.title(args["rules"], args.get("variant", ""))
    args["name"] = who(notice)
    if "answer" in args:
        args["answer"] = ANSWERS.get(args["answer"], "answered")
    for rating in ("before", "after"):
        if rating in args:
            args[rating] = _rating(args[rating])
    if key == "notice.banned":
        args["until"] = f"until {args['until']}" if args.get("until") else "for good"
    return words.format_map(args)


def _rating(text: str) -> str:
    """A rating as the ratings screen shows one: one decimal (a number sent with more)."""
    try:
        return f"{float(text):.1f}"
    except ValueError:
        return text
