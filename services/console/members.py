"""A member of staff and what their roles allow.

Roles nest only as the contract says: every role may do what a viewer may, and an operator what
support may; an auditor is not support (the operator log is open to support and auditors alike).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.common.auth import STAFF_ROLES

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
