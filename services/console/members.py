"""A member of staff and what their roles allow.

How roles nest is services/common/auth.py's `roles_allowing` (the services check the same).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.common.auth import roles_allowing


@dataclass(frozen=True)
class Staff:
    subject: str  # the identity provider's subject, prefixed by where it came from ("oidc:", "local:")
    name: str
    roles: frozenset[str]

    def may(self, role: str) -> bool:
        """Whether these roles include ``role`` or one that does all it does."""
        return bool(self.roles & set(roles_allowing(role)))

    def may_any(self, roles: Iterable[str]) -> bool:
        return any(self.may(role) for role in roles)
