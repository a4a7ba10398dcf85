"""The NATS subjects and the JetStream stream: the one place they are defined.

    domino.v1.match.<match_id>.<event>   every stored match event, public fields only
                                         (event: match_started, round_dealt, tile_played,
                                         tile_drawn, turn_passed, round_ended, match_ended,
                                         seat_away, seat_returned)
    domino.v1.turn.<match_id>            a seat is to act: {match_id, version, seat,
                                         player_id, round, turn_no, deadline}

All of them live in the JetStream stream DOMINO. Every message carries `Nats-Msg-Id`
(`<match>:<version>` for events, `<match>:turn:<version>` for turns), so a relay that
publishes again after a crash is de-duplicated by the server, and
`Domino-Notification-Id`, the store position it was published from, from which a
restarted relay resumes. Payloads are JSON. The `v1` is the version of this contract.
"""

from __future__ import annotations

STREAM = "DOMINO"
STREAM_SUBJECTS = ["domino.v1.>"]
DUPLICATE_WINDOW_SECONDS = 120
MAX_AGE_SECONDS = 7 * 24 * 3600  # consumers that are away longer than a week start afresh
NOTIFICATION_HEADER = "Domino-Notification-Id"
ALL_MATCH_EVENTS = "domino.v1.match.>"
ALL_TURNS = "domino.v1.turn.>"


def match_event_subject(match_id, event: str) -> str:
    return f"domino.v1.match.{match_id}.{event}"


def turn_subject(match_id) -> str:
    return f"domino.v1.turn.{match_id}"


def event_msg_id(match_id, version: int) -> str:
    return f"{match_id}:{version}"


def turn_msg_id(match_id, version: int) -> str:
    return f"{match_id}:turn:{version}"


async def ensure_stream(js, replicas: int | None = None) -> None:
    """Create the stream, or leave an existing one as it is."""
    from nats.js.errors import NotFoundError

    from .config import Settings

    try:
        await js.stream_info(STREAM)
    except NotFoundError:
        await js.add_stream(name=STREAM, subjects=STREAM_SUBJECTS, duplicate_window=DUPLICATE_WINDOW_SECONDS,
                            num_replicas=replicas or Settings().nats_stream_replicas, max_age=MAX_AGE_SECONDS)
