"""What matchmaking asks of the social service: who is whose friend (and whether a block
stands between two players), and storing the notifications invites owe (notices.py). The
Social port; its gRPC side is social_client.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .errors import SocialUnavailable


@dataclass(frozen=True)
class Relation:
    friends: bool
    blocked: bool  # either blocks the other

    @property
    def may_invite(self) -> bool:
        return self.friends and not self.blocked


class Social(Protocol):
    def relations(self, player_id: str, others: list[str]) -> dict[str, Relation]:
        """How ``player_id`` stands with each of ``others``; SocialUnavailable when it cannot say now."""

    def post(self, notices: list[dict]) -> int:
        """Store the notices (notices.py's dicts); how many were new. SocialUnavailable when
        the social service did not store them (they are posted again); NoticesRefused when it
        refused them (posted again they would be refused again)."""


class NoSocial:
    """An application built without a social service (tests of matchmaking alone): nobody
    is anybody's friend, and nothing is ever posted."""

    def relations(self, player_id: str, others: list[str]) -> dict[str, Relation]:
        raise SocialUnavailable("no social service is configured", retry_after=1.0)

    def post(self, notices: list[dict]) -> int:
        raise SocialUnavailable("no social service is configured", retry_after=1.0)
