"""Where a friend is, in a few words: online, playing a family (and whether it may be
watched), or when they were last seen ("5 min ago"), from the server's FriendPresence."""

from __future__ import annotations

from domino.social.v1 import social_service_pb2 as so

from . import families


def ago(seconds: float) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``2 days ago``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


def family_name(rules: str) -> str:
    """The family in the server's words (its name as sent when this server does not play it)."""
    return families.title(rules) if rules else "a match"


def presence_text(presence: so.FriendPresence, now: float) -> str:
    """"" when the server says nothing of it (an older server)."""
    availability = presence.availability
    if availability == so.AVAILABILITY_ONLINE:
        return "online"
    if availability == so.AVAILABILITY_PLAYING:
        return f"playing {family_name(presence.rules)}" + (" (may be watched)" if presence.watchable else "")
    if availability == so.AVAILABILITY_OFFLINE:
        if presence.HasField("last_seen"):
            return "last seen " + ago(now - presence.last_seen.ToNanoseconds() / 1e9)
        return "offline"
    return ""


def watchable(presence: so.FriendPresence) -> bool:
    return presence.availability == so.AVAILABILITY_PLAYING and presence.watchable and bool(presence.match_id)
