"""A server's refusal in the player's words: its message, and what to do about the usual ones."""

from __future__ import annotations

import grpc

from .api import ApiError


def explain(error: ApiError) -> str:
    """The server's message, with what to do about the usual refusals."""
    text = str(error)
    if error.code == grpc.StatusCode.FAILED_PRECONDITION and "already" in error.message:
        text += (". Go back there with r in the menu (your room, your ticket or your match), or "
                 "domino play --resume last for a match.")
    elif error.code == grpc.StatusCode.NOT_FOUND and "code" in error.message.lower():
        text += ". Check the invite code."
    return text


def plain(error: ApiError) -> str:
    """The server's own message when it sent one (a refusal, or "not available on this
    server"); the usual words when the service could not be reached at all."""
    message = error.message or ""
    if not message or error.code == grpc.StatusCode.DEADLINE_EXCEEDED or "failed to connect" in message.lower():
        return str(error)
    return message
