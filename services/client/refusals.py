"""A server's refusal in the player's words: its message, and what to do about the usual ones."""

from __future__ import annotations

from .api import ApiError, subject_of


def explain(error: ApiError) -> str:
    """The server's message, with what to do about the usual refusals (told by their reason)."""
    text = str(error)
    if error.reason == "ALREADY_SEATED":
        text += (". Go back there with r in the menu (your room, your ticket or your match), or "
                 "domino play --resume last for a match.")
    elif error.reason == "ROOM_NOT_FOUND":
        text += ". Check the invite code."
    elif error.reason == "TOO_MANY_FAILED_JOINS" and error.retry_after:
        text += f". Try again in {max(1, round(error.retry_after))} s."
    return text


def yours(message: str, me: str) -> str:
    """A server's message as the player reads it: their own account id, which some servers
    put in refusals ("3f9a… has no seat at this match"), said as "you"."""
    if not me or me not in message:
        return message
    for said, meant in ((f"{me} has", "you have"), (f"{me} is", "you are"), (f"{me} was", "you were")):
        message = message.replace(said, meant)
    return message.replace(me, "you")


def me_of(api) -> str:
    """The player id the api's calls speak for ("" when it cannot say)."""
    try:
        return subject_of(api.token())
    except (ApiError, AttributeError):
        return ""


def plain(error: ApiError) -> str:
    """The server's own message when it sent one (a refusal, or "not available on this
    server"); the usual words when the service could not be reached at all."""
    if not error.message or not error.reason:  # no server answered (or said why): the usual words
        return str(error)
    return error.message
