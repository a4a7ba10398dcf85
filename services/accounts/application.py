"""The account service's use cases, composed: one object the adapter, the admin command and
the tests call. Each part holds one concern (use_cases.py says what they share):

- sign_ins.py: sign in by device or ID token, refresh, sign out;
- account_changes.py: the name, the identities and devices, as the player changes them;
- erasure.py: deletion, the erasure of the history, the export;
- operators.py: standing and bans, and the store's own upkeep;
- staff_actions.py, staff_views.py: what staff do to and see of a named player, with the
  operator log (PlayerAdminService).
"""

from __future__ import annotations

from .account_changes import AccountChanges
from .sign_ins import SignIns
from .staff_actions import StaffActions
from .staff_views import StaffViews
from .use_cases import AccountView, DeviceView, History, Observer, Social, Standing, Tokens, VerifiedToken, \
    retried_on_conflict

__all__ = ["AccountApplication", "AccountView", "DeviceView", "History", "Observer", "Social", "Standing", "Tokens",
           "VerifiedToken", "retried_on_conflict"]


class AccountApplication(SignIns, AccountChanges, StaffActions, StaffViews):
    """Built with the store, the keys it mints with, the ID-token verifier, the match
    service's history port, the clock, the limits and the social service's port
    (use_cases.UseCases.__init__)."""
