"""Who may call the match service at all, once their token is verified
(services/common/auth_interceptor.py), and who may act for a seat.

A token must be of the kind its subject is: only bot tokens speak for bot ids
(`bot:<strength>:<seat>`), and bot tokens speak for nothing else. An account token only
erases a deleted account's history. The notifier's and the social service's `service`
tokens (`sub` "notifier", "social") ask only their own calls (notice_rpcs.py): a token made
to ask whether a player is watching cannot create or watch a match. Staff (the console's
`operator` tokens) only watch a match and export one (staff.py says which roles may what);
MatchAdminService is theirs alone. Players (and auditors, staff) are rate-limited per subject;
services act for many players, and one bot id (`bot:greedy:1`) sits in many matches at
once, so they are not (their tokens come only from our services).
"""

from __future__ import annotations

from services.common.auth import Identity
from services.common.bot_ids import is_bot
from services.common.limits import RateLimit

from .errors import Forbidden

ACCOUNT_RPCS = frozenset({"ForgetPlayer"})  # the account service's own: their handlers check the role
# Anyone may call these without a token: the head keys are what a player checks the heads
# kept from its matches with, after its account is gone too (docs/record.md, "Signed heads").
OPEN_RPCS = frozenset({"GetHeadKeys"})
# The services that only tell players what happens, and the calls each may make (no other).
NOTICE_RPCS = {"notifier": frozenset({"GetTurnAttention", "DescribeMatchEnd"}),
               "social": frozenset({"ListPlayingNow"})}
# What an operator token may ask of MatchService (their handlers check the staff role).
STAFF_RPCS = frozenset({"WatchMatch", "ExportMatch"})


class Admission:
    """``admit(identity, method)`` for the interceptor: refuses (Forbidden, TooMany) a caller
    the match service takes no call from."""

    def __init__(self, rates: RateLimit) -> None:
        self.rates = rates

    def __call__(self, who: Identity, method: str) -> None:
        if method in ACCOUNT_RPCS:
            return
        if who.role == "account":
            raise Forbidden("an account token only erases a deleted account's history (ForgetPlayer)")
        if who.is_staff and method not in STAFF_RPCS:
            raise Forbidden(f"an operator token asks only {', '.join(sorted(STAFF_RPCS))} of MatchService")
        if who.is_service and method not in NOTICE_RPCS.get(who.subject, (method,)):
            allowed = ", ".join(sorted(NOTICE_RPCS[who.subject]))
            raise Forbidden(f"the {who.subject} service's token asks only {allowed}")
        if not (who.is_service or who.is_bot):  # a bot id plays in many matches at once
            self.rates.take(who.subject)
        if is_bot(who.subject) != who.is_bot and who.role in ("player", "bot"):
            raise Forbidden("bot seats are played only with the bot service's tokens" if is_bot(who.subject)
                            else "a bot token speaks only for a bot's seat")


class StaffAdmission:
    """``admit`` for MatchAdminService: staff alone (an operator token), rate-limited per
    member of staff; what each call asks of their roles its handler checks (staff.py)."""

    def __init__(self, rates: RateLimit) -> None:
        self.rates = rates

    def __call__(self, who: Identity, method: str) -> None:
        if not who.is_staff:
            raise Forbidden(f"MatchAdminService answers staff alone (an operator token), not a {who.role} token")
        self.rates.take(who.subject)


def seated(who: Identity) -> Identity:
    """A caller acting for a seat: a player (or bot) token for the seat's own id."""
    if who.role not in ("player", "bot"):
        raise Forbidden(f"a {who.role} token cannot act for a seat; seat commands need the player's own token")
    return who
