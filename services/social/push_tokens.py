"""Push tokens per installation, notification settings, and whether a notification may
buzz a phone now (opt-outs, quiet hours, pushes per minute).

The interface the rest of the social service uses (kept as written here):

    pushes = Pushes(db, clock, limits)       # db: services.common.sql.Database, shared with SocialStore
    pushes.create()                          # its tables (PUSH_TABLES)
    decision, targets = pushes.decide(player_id, kind, now)
        # kind: NotificationKind's name lower case without the prefix ("your_turn");
        # decision: "send" | "opted_out" | "quiet_hours" | "rate_limited" | "no_tokens";
        # "send" counts one push against the player's minute; targets: list[Target]
        # decide_in(execute, ...): the same inside the caller's own transaction (ClaimPush's)
    pushes.export(player_id) -> PushExport   # tokens and settings, for ExportPlayerData
    pushes.erase(player_id) -> int           # rows erased, for ErasePlayer (erase_in: inside one)
    pushes.forget_sessions(session_ids) -> int  # tokens registered by sessions that ended
    pushes.forget_token(platform, token) -> bool  # the provider called it dead (ForgetPushToken)
    pushes.watch_revocations(revocations)    # forgets the tokens of sessions as they are revoked

A token is the phone's, and a phone is one player's at a time: registering a token another
player (or another installation) holds moves it, so a phone that changes hands never buzzes
with the last owner's news. A token is also its session's: the session id of the call that
registered it is kept, and when the account service lists that session as ended (sign-out,
device removed, deletion, ban) the token is forgotten.

Every decision about one player is taken under that player's row in
domino_social_push_sends (its recent sends, and the lock of the player's push rows: an
upsert takes it on PostgreSQL; SQLite's transactions are serial), so replicas agree on the
minute's count and two registrations never pass the installations limit together."""

from __future__ import annotations

import asyncio
import logging
import time
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterable

from services.common.sql import Database, Execute

from .errors import Refused
from .transactions import retried_on_conflict

if TYPE_CHECKING:
    from services.common.revocations import Revocations

log = logging.getLogger("domino.social.push")
PUSH_TABLES = ("domino_social_push_tokens", "domino_social_push_settings", "domino_social_push_sends")
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_social_push_tokens (player_id TEXT NOT NULL, installation_id TEXT NOT NULL, "
    "platform TEXT NOT NULL, token TEXT NOT NULL, apns_environment TEXT NOT NULL, locale TEXT NOT NULL, "
    "session_id TEXT NOT NULL, registered_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (player_id, installation_id))",
    "CREATE UNIQUE INDEX IF NOT EXISTS domino_social_push_tokens_token ON domino_social_push_tokens "
    "(platform, token)",
    "CREATE INDEX IF NOT EXISTS domino_social_push_tokens_session ON domino_social_push_tokens (session_id)",
    "CREATE TABLE IF NOT EXISTS domino_social_push_settings (player_id TEXT PRIMARY KEY, "
    "push_disabled TEXT NOT NULL, quiet_start INTEGER, quiet_end INTEGER, time_zone TEXT NOT NULL, "
    "updated_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS domino_social_push_sends (player_id TEXT PRIMARY KEY, recent TEXT NOT NULL)",
]
_TARGET = "installation_id, platform, token, apns_environment, locale, registered_at"
WINDOW_SECONDS = 60.0
YOUR_TURN = "your_turn"  # the one kind quiet hours let through: a turn waits for no one
DECISIONS = ("send", "opted_out", "quiet_hours", "rate_limited", "no_tokens")
PENDING_MAX = 10_000  # ended sessions waiting for their tokens to be forgotten
FORGET_BATCH = 500


@dataclass(frozen=True)
class PushLimits:
    installations: int = 10
    per_minute: int = 6


def push_limits_of(settings: Any) -> PushLimits:
    return PushLimits(installations=settings.push_installations_max, per_minute=settings.push_per_minute)


@dataclass(frozen=True)
class Registration:
    """What RegisterPushToken carries, checked (services/social/push_fields.py)."""
    installation_id: str
    platform: str  # "apns" | "fcm"
    token: str
    apns_environment: str = ""  # "sandbox" | "production"; "" for FCM
    locale: str = ""


@dataclass(frozen=True)
class Target:
    """One registered phone: where a push goes."""
    installation_id: str
    platform: str
    token: str
    apns_environment: str
    locale: str
    registered_at: float


@dataclass(frozen=True)
class PushSettings:
    push_disabled: tuple[str, ...] = ()  # kind names, sorted
    quiet_hours: tuple[int, int] | None = None  # (start, end) minutes after local midnight
    time_zone: str = ""  # IANA; "": UTC

    def quiet_at(self, now: float) -> bool:
        """Whether ``now`` falls in the quiet hours, read on the player's own clock (so a
        daylight saving change moves them with the player); an end before the start spans
        midnight."""
        if self.quiet_hours is None:
            return False
        local = datetime.fromtimestamp(now, _zone(self.time_zone))
        minute = local.hour * 60 + local.minute
        start, end = self.quiet_hours
        return start <= minute < end if start < end else (minute >= start or minute < end)


@dataclass(frozen=True)
class SettingsChange:
    """What UpdateNotificationSettings sets; None (and False) leave a setting as it is."""
    push_disabled: tuple[str, ...] | None = None  # (): every kind pushes
    quiet_hours: tuple[int, int] | None = None
    clear_quiet_hours: bool = False
    time_zone: str | None = None


@dataclass(frozen=True)
class PushExport:
    targets: list[Target] = field(default_factory=list)  # the newest registration first
    settings: PushSettings = PushSettings()


def _zone(name: str) -> Any:
    if not name:
        return timezone.utc
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        log.warning("a stored time zone is no longer in the zone database: its quiet hours are read in UTC",
                    extra={"time_zone": name[:64]})
        return timezone.utc


class Pushes:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time,
                 limits: PushLimits = PushLimits()) -> None:
        self.db = db
        self.clock = clock
        self.limits = limits
        self._pending: set[str] = set()
        self._worker: asyncio.Task[None] | None = None

    def create(self) -> None:
        with self.db.transaction() as execute:
            for statement in _SCHEMA:
                execute(statement)

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every push table, sorted (tests: a refused call changed nothing)."""
        with self.db.transaction() as execute:
            return {table: sorted(tuple(r) for r in execute(f"SELECT * FROM {table}").fetchall())
                    for table in PUSH_TABLES}

    # ---- phones -----------------------------------------------------------------------------

    @retried_on_conflict
    def register(self, player_id: str, session_id: str, registration: Registration) -> Target:
        """Keeps ``registration`` as the installation's one token (replacing its last), taking
        the token from whichever player or installation held it; a new installation past
        the limit is Refused (TOO_MANY_PUSH_TOKENS) and nothing changes."""
        r = registration
        now = self.clock()
        with self.db.transaction() as execute:
            _lock_player(execute, player_id)
            execute("DELETE FROM domino_social_push_tokens WHERE platform = ? AND token = ? "
                    "AND NOT (player_id = ? AND installation_id = ?)", r.platform, r.token, player_id,
                    r.installation_id)
            known = execute("SELECT 1 FROM domino_social_push_tokens WHERE player_id = ? AND installation_id = ?",
                            player_id, r.installation_id).fetchone()
            if known is None:
                count = int(execute("SELECT COUNT(*) FROM domino_social_push_tokens WHERE player_id = ?",
                                    player_id).fetchone()[0])
                if count >= self.limits.installations:
                    raise Refused(f"at most {self.limits.installations} phones may be registered for pushes: "
                                  "unregister one first", error_reason="TOO_MANY_PUSH_TOKENS")
            execute("INSERT INTO domino_social_push_tokens (player_id, installation_id, platform, token, "
                    "apns_environment, locale, session_id, registered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (player_id, installation_id) DO UPDATE SET platform = excluded.platform, "
                    "token = excluded.token, apns_environment = excluded.apns_environment, "
                    "locale = excluded.locale, session_id = excluded.session_id, "
                    "registered_at = excluded.registered_at",
                    player_id, r.installation_id, r.platform, r.token, r.apns_environment, r.locale, session_id, now)
        return Target(r.installation_id, r.platform, r.token, r.apns_environment, r.locale, now)

    @retried_on_conflict
    def unregister(self, player_id: str, installation_id: str) -> bool:
        with self.db.transaction() as execute:
            return execute("DELETE FROM domino_social_push_tokens WHERE player_id = ? AND installation_id = ?",
                           player_id, installation_id).rowcount > 0

    @staticmethod
    def targets_in(execute: Execute, player_id: str) -> list[Target]:
        """The player's phones, inside a caller's transaction (a claim's retry)."""
        return _targets(execute, player_id)

    def targets(self, player_id: str) -> list[Target]:
        with self.db.transaction() as execute:
            return _targets(execute, player_id)

    @retried_on_conflict
    def forget_token(self, platform: str, token: str) -> bool:
        """The provider said this token is dead (unregistered, invalid): whoever held it."""
        with self.db.transaction() as execute:
            return execute("DELETE FROM domino_social_push_tokens WHERE platform = ? AND token = ?",
                           platform, token).rowcount > 0

    def forget_sessions(self, session_ids: Iterable[str]) -> int:
        """Forgets the tokens registered by these sessions (they ended); how many went."""
        ids = sorted({s for s in session_ids if s})
        gone = 0
        for start in range(0, len(ids), FORGET_BATCH):
            gone += self._forget_batch(ids[start:start + FORGET_BATCH])
        return gone

    @retried_on_conflict
    def _forget_batch(self, ids: list[str]) -> int:
        marks = ", ".join("?" for _ in ids)
        with self.db.transaction() as execute:
            return max(0, execute(f"DELETE FROM domino_social_push_tokens WHERE session_id IN ({marks})",
                                  *ids).rowcount)

    # ---- settings ---------------------------------------------------------------------------

    def settings(self, player_id: str) -> PushSettings:
        with self.db.transaction() as execute:
            return _settings(execute, player_id)

    @retried_on_conflict
    def update_settings(self, player_id: str, change: SettingsChange) -> PushSettings:
        with self.db.transaction() as execute:
            _lock_player(execute, player_id)
            now = _settings(execute, player_id)
            quiet = None if change.clear_quiet_hours else (change.quiet_hours or now.quiet_hours)
            new = PushSettings(now.push_disabled if change.push_disabled is None else change.push_disabled,
                               quiet, now.time_zone if change.time_zone is None else change.time_zone)
            execute("INSERT INTO domino_social_push_settings (player_id, push_disabled, quiet_start, quiet_end, "
                    "time_zone, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
                    "push_disabled = excluded.push_disabled, quiet_start = excluded.quiet_start, "
                    "quiet_end = excluded.quiet_end, time_zone = excluded.time_zone, "
                    "updated_at = excluded.updated_at",
                    player_id, ",".join(new.push_disabled), None if quiet is None else quiet[0],
                    None if quiet is None else quiet[1], new.time_zone, self.clock())
            return new

    # ---- the decision -----------------------------------------------------------------------

    @retried_on_conflict
    def decide(self, player_id: str, kind: str, now: float) -> tuple[str, list[Target]]:
        with self.db.transaction() as execute:
            return self.decide_in(execute, player_id, kind, now)

    def decide_in(self, execute: Execute, player_id: str, kind: str, now: float) -> tuple[str, list[Target]]:
        """Whether a notification of ``kind`` may buzz ``player_id``'s phones at ``now``, in
        this order: the kind opted out, the quiet hours (never for your turn), the minute's
        pushes spent, no phone; else "send", counted, with the phones."""
        prefs = _settings(execute, player_id)
        if kind in prefs.push_disabled:
            return "opted_out", []
        if kind != YOUR_TURN and prefs.quiet_at(now):
            return "quiet_hours", []
        recent = [at for at in _lock_player(execute, player_id) if at > now - WINDOW_SECONDS]
        if len(recent) >= self.limits.per_minute:
            return "rate_limited", []
        targets = _targets(execute, player_id)
        if not targets:
            return "no_tokens", []
        recent = (recent + [now])[-self.limits.per_minute:]
        execute("UPDATE domino_social_push_sends SET recent = ? WHERE player_id = ?",
                " ".join(repr(at) for at in recent), player_id)
        return "send", targets

    # ---- a player's data --------------------------------------------------------------------

    def export(self, player_id: str) -> PushExport:
        with self.db.transaction() as execute:
            return PushExport(_targets(execute, player_id), _settings(execute, player_id))

    @retried_on_conflict
    def erase(self, player_id: str) -> int:
        with self.db.transaction() as execute:
            return self.erase_in(execute, player_id)

    @staticmethod
    def erase_in(execute: Execute, player_id: str) -> int:
        """Deletes the player's phones, settings and recent sends; how many rows went."""
        return sum(max(0, execute(f"DELETE FROM {table} WHERE player_id = ?", player_id).rowcount)
                   for table in PUSH_TABLES)

    # ---- ended sessions ---------------------------------------------------------------------

    def watch_revocations(self, revocations: Revocations) -> None:
        """Forgets the tokens of each session the revocation list learns has ended, off the
        event loop, one batch at a time (the list calls back on the loop, and must not wait)."""
        revocations.on_revoked(self._revoked)

    async def settled(self) -> None:
        """Until the tokens of the sessions learned so far are forgotten (tests, shutdown)."""
        while self._worker is not None and not self._worker.done():
            await asyncio.shield(self._worker)

    def _revoked(self, sessions: tuple[str, ...]) -> None:
        room = max(0, PENDING_MAX - len(self._pending))
        if len(sessions) > room:
            log.warning("too many ended sessions waiting for their push tokens to be forgotten: some tokens stay "
                        "until the provider calls them dead", extra={"dropped": len(sessions) - room})
        self._pending.update(sessions[:room])
        if self._worker is not None and not self._worker.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            pending, self._pending = self._pending, set()
            self.forget_sessions(pending)
            return
        self._worker = loop.create_task(self._forget_pending())

    async def _forget_pending(self) -> None:
        while self._pending:
            batch = sorted(self._pending)[:FORGET_BATCH]
            self._pending.difference_update(batch)
            try:
                forgotten = await asyncio.to_thread(self.forget_sessions, batch)
            except Exception as error:  # noqa: BLE001 - kept for the next revocation to retry
                self._pending.update(batch[:max(0, PENDING_MAX - len(self._pending))])
                log.warning("could not forget the push tokens of ended sessions: tried again at the next revocation",
                            extra={"sessions": len(batch), "error": type(error).__name__})
                return
            if forgotten:
                log.info("forgot the push tokens of ended sessions", extra={"tokens": forgotten})


def _lock_player(execute: Execute, player_id: str) -> list[float]:
    """Takes the player's push lock (its row of recent sends, made if new); their instants."""
    execute("INSERT INTO domino_social_push_sends (player_id, recent) VALUES (?, '') ON CONFLICT (player_id) "
            "DO UPDATE SET recent = domino_social_push_sends.recent", player_id)
    row = execute("SELECT recent FROM domino_social_push_sends WHERE player_id = ?", player_id).fetchone()
    return [float(at) for at in row[0].split()]


def _targets(execute: Execute, player_id: str) -> list[Target]:
    rows = execute(f"SELECT {_TARGET} FROM domino_social_push_tokens WHERE player_id = ? "
                   "ORDER BY registered_at DESC, installation_id", player_id).fetchall()
    return [Target(r[0], r[1], r[2], r[3], r[4], float(r[5])) for r in rows]


def _settings(execute: Execute, player_id: str) -> PushSettings:
    row = execute("SELECT push_disabled, quiet_start, quiet_end, time_zone FROM domino_social_push_settings "
                  "WHERE player_id = ?", player_id).fetchone()
    if row is None:
        return PushSettings()
    quiet = None if row[1] is None or row[2] is None else (int(row[1]), int(row[2]))
    return PushSettings(tuple(k for k in row[0].split(",") if k), quiet, row[3])
