"""Which staff roles may ask what of the match service (proto/domino/admin/v1/
match_admin_service.proto): every role may do what a viewer may (list matches, watch one as a
spectator does); support, operator and auditor may also describe a player's play; an auditor
alone exports the whole record of a finished match, hands included.

Roles are read from the operator token's `staff_roles` (services/common/auth.py), which the
console mints for a signed-in member of staff; a role short of the call is refused with
STAFF_ROLE_TOO_LOW, any other kind of token with WRONG_CALLER.
"""

from __future__ import annotations

from services.common.auth import Identity, roles_allowing

from .errors import Forbidden, StaffRoleTooLow

ANY_STAFF = frozenset(roles_allowing("viewer"))
SUPPORT = frozenset(roles_allowing("support", "auditor"))
AUDITOR = frozenset(roles_allowing("auditor"))


def staff_with(who: Identity, roles: frozenset[str], call: str) -> Identity:
    """``who`` if a member of staff holding one of ``roles``; refused otherwise."""
    if not who.is_staff:
        raise Forbidden(f"{call} answers staff alone (an operator token), not a {who.role} token")
    if not roles & set(who.staff_roles):
        raise StaffRoleTooLow(f"{call} needs the staff role {' or '.join(sorted(roles))}; "
                              f"this token holds {', '.join(who.staff_roles) or 'none'}")
    return who
