"""A server's refusal in the player's words: its message, and what to do about the usual ones."""

from __future__ import annotations

import grpc

from .api import ApiError, subject_of


def explain(error: ApiError) -> str:
    """The server's message, with what to do about the usual refusals."""
    text = str(error)
    if error.code == grpc.StatusCode.FAILED_PRECONDITION and "already" in error.message:
        text += (". Go back there with r in the menu (your room, your ticket or your match), or "
                 "domino play --resume last for a match.")
    elif error.code == grpc.StatusCode.NOT_FOUND and "code" in error.message.lower():
        text += ". Check the invite code."
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
    message = error.message or ""
    if not message or error.code == grpc.StatusCode.DEADLINE_EXCEEDED or "failed to connect" in message.lower():
        return str(error)
    return message
