"""Staff sessions, held here in the process: the signed cookie carries only a random session id.

A copied cookie is therefore worth nothing once its session has been signed out of, gone idle
(30 minutes) or grown old (12 hours): both timeouts are decided here with the console's clock,
never by the browser. A restart of the console signs everyone out.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request

if TYPE_CHECKING:
    from .members import Staff

_MAX_SESSIONS = 10_000


@dataclass
class _Session:
    staff: Staff
    started: float
    seen: float
    csrf: str


class SessionBook:
    def __init__(self, idle_seconds: float, absolute_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_seconds, self.absolute_seconds, self.clock = idle_seconds, absolute_seconds, clock
        self._sessions: dict[str, _Session] = {}

    def open(self, staff: Staff) -> str:
        self._drop_ended()
        if len(self._sessions) >= _MAX_SESSIONS:
            oldest = min(self._sessions, key=lambda sid: self._sessions[sid].seen)
            del self._sessions[oldest]
        sid, now = secrets.token_urlsafe(32), self.clock()
        self._sessions[sid] = _Session(staff, now, now, secrets.token_urlsafe(32))
        return sid

    def staff(self, sid: str, use: bool = True) -> Staff | None:
        """The session's staff, counting this as a use unless ``use`` is false (a page's own
        timed refresh: an unattended browser must still go idle); None if it never was or
        has ended."""
        session = self._live(sid)
        if session is None:
            return None
        if use:
            session.seen = self.clock()
        return session.staff

    def csrf_token(self, sid: str) -> str:
        session = self._live(sid)
        return session.csrf if session else ""

    def close(self, sid: str) -> Staff | None:
        session = self._sessions.pop(sid, None)
        return session.staff if session else None

    def _live(self, sid: str) -> _Session | None:
        session = self._sessions.get(sid)
        if session is None:
            return None
        now = self.clock()
        if now - session.seen > self.idle_seconds or now - session.started > self.absolute_seconds:
            del self._sessions[sid]
            return None
        return session

    def _drop_ended(self) -> None:
        for sid in list(self._sessions):
            self._live(sid)


def session_id(request: Request) -> str:
    sid = request.session.get("sid", "")
    return sid if isinstance(sid, str) else ""


def current_staff(request: Request, use: bool = True) -> Staff | None:
    staff = request.app.state.sessions.staff(session_id(request), use) if session_id(request) else None
    if staff is None and "sid" in request.session:
        request.session.clear()
    return staff


def start_session(request: Request, staff: Staff) -> None:
    """Signs ``staff`` in under a new session id (a new id at each sign-in: no fixation)."""
    book: SessionBook = request.app.state.sessions
    if session_id(request):
        book.close(session_id(request))
    request.session.clear()
    request.session["sid"] = book.open(staff)


def end_session(request: Request) -> Staff | None:
    staff = request.app.state.sessions.close(session_id(request)) if session_id(request) else None
    request.session.clear()
    return staff
