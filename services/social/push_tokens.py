"""Push tokens per installation, notification settings, and whether a notification may
buzz a phone now (opt-outs, quiet hours, pushes per minute). (Being built: issue 36.)

The interface the rest of the social service uses (kept as written here):

    pushes = Pushes(db, clock, limits)       # db: services.common.sql.Database, shared with SocialStore
    pushes.create()                          # its tables
    decision, targets = pushes.decide(player_id, kind, now)
        # kind: NotificationKind's name lower case without the prefix ("your_turn");
        # decision: "send" | "opted_out" | "quiet_hours" | "rate_limited" | "no_tokens";
        # "send" counts one push against the player's minute; targets: list[Target]
    pushes.export(player_id) -> PushExport   # tokens and settings, for ExportPlayerData
    pushes.erase(player_id) -> int           # rows erased, for ErasePlayer
    pushes.forget_sessions(session_ids) -> int  # tokens registered by sessions that ended
"""

from __future__ import annotations
