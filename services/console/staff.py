"""Who is signed in, and what they may do: every handler starts with `await signed_in(request, role)`.

Roles nest only as the contract says: every role may do what a viewer may, and an operator what
support may; an auditor is not support (the operator log is open to support and auditors alike).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from starlette.requests import Request

from services.common.auth import STAFF_ROLES

from .sessions import current_staff

_IMPLIED = {"viewer": frozenset(STAFF_ROLES), "support": frozenset({"support", "operator"}),
            "operator": frozenset({"operator"}), "auditor": frozenset({"auditor"})}


@dataclass(frozen=True)
class Staff:
    subject: str  # the identity provider's subject, prefixed by where it came from ("oidc:", "local:")
    name: str
    roles: frozenset[str]

    def may(self, role: str) -> bool:
        """Whether these roles include ``role`` or one that does all it does."""
        return bool(self.roles & _IMPLIED[role])

    def may_any(self, roles: Iterable[str]) -> bool:
        return any(self.may(role) for role in roles)


class SignInNeeded(Exception):
    """Nobody is signed in (or the session ended): the app answers with a redirect to sign in."""


class RoleTooLow(Exception):
    """Signed in without the role a page or action needs: the app answers 403 with a page saying so."""

    def __init__(self, staff: Staff, needed: tuple[str, ...]) -> None:
        super().__init__(f"needs the {' or '.join(needed)} role")
        self.staff, self.needed = staff, needed


async def signed_in(request: Request, role: str | tuple[str, ...] = "viewer") -> Staff:
    """The signed-in member of staff, if they hold ``role`` (or one of several).

    Raises SignInNeeded when nobody is (the app redirects to /sign-in), RoleTooLow when the
    role is missing (a 403 page) and TooMany past the staff member's rate limit (429). The
    session's timeouts are checked here, server side.
    """
    staff = current_staff(request)
    if staff is None:
        raise SignInNeeded()
    needed = (role,) if isinstance(role, str) else tuple(role)
    if not staff.may_any(needed):
        request.app.state.metrics.refusals.labels(reason="role").inc()
        raise RoleTooLow(staff, needed)
    request.app.state.staff_limit.take(staff.subject)
    return staff
