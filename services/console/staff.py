"""Who is signed in, and what they may do: every handler starts with `await signed_in(request, role)`.

What each role allows is members.py's.
"""

from __future__ import annotations

from starlette.requests import Request

from .members import Staff
from .sessions import current_staff

class SignInNeeded(Exception):
    """Nobody is signed in (or the session ended): the app answers with a redirect to sign in."""


class RoleTooLow(Exception):
    """Signed in without the role a page or action needs: the app answers 403 with a page saying so."""

    def __init__(self, staff: Staff, needed: tuple[str, ...]) -> None:
        super().__init__(f"needs the {' or '.join(needed)} role")
        self.staff, self.needed = staff, needed


async def signed_in(request: Request, role: str | tuple[str, ...] = "viewer", refresh: bool = False) -> Staff:
    """The signed-in member of staff, if they hold ``role`` (or one of several).

    Raises SignInNeeded when nobody is (the app redirects to /sign-in), RoleTooLow when the
    role is missing (a 403 page) and TooMany past the staff member's rate limit (429). The
    session's timeouts are checked here, server side. ``refresh``: a page's own timed
    refresh, which is neither a use of the session (it still goes idle) nor counted against
    the staff member's rate limit.
    """
    staff = current_staff(request, use=not refresh)
    if staff is None:
        raise SignInNeeded()
    needed = (role,) if isinstance(role, str) else tuple(role)
    if not staff.may_any(needed):
        request.app.state.metrics.refusals.labels(reason="role").inc()
        raise RoleTooLow(staff, needed)
    if not refresh:
        request.app.state.staff_limit.take(staff.subject)
    return staff
