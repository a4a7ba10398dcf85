"""SocialService's calls for other services: PostNotifications (the notifier, matchmaking,
and the account service), CheckRelations (matchmaking and the match service) and ClaimPush
(the notifier). A mixin of SocialServicer, which gives it ``self.social``, ``self.pushes``
and ``self.keys``.

Each checks its caller first: a `service` token whose `sub` names a service allowed to
make the call (the account service: its `account` token, sub "accounts"); every other
token, a player's included, is WRONG_CALLER. Then the request's fields, in order. A poster
posts only the kinds it tells of (POSTER_KINDS), and one a player sends names that player."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import AuthError, Identity, bearer_identity

from .errors import InvalidRequest
from .inbox_rpcs import notification_pb
from .notices import FROM_A_PLAYER, check_batch, checked
from .push_rpcs import push_target_pb
from .statuses import run, statuses

if TYPE_CHECKING:
    from .statuses import Context

POSTERS = ("notifier", "matchmaking")
ACCOUNT_SERVICE = "accounts"
# The kinds each poster tells of (the account service by its sub): no service speaks for another.
POSTER_KINDS = {"matchmaking": frozenset({"invite", "rematch", "invite_answered"}),
                "notifier": frozenset({"your_turn", "match_result", "rating_change"}),
                ACCOUNT_SERVICE: frozenset({"ban", "account"})}
RELATIONS_ASKERS = ("matchmaking", "match")
MAX_OTHERS = 100
DECISIONS = {"send": pb.PUSH_DECISION_SEND, "opted_out": pb.PUSH_DECISION_OPTED_OUT,
             "quiet_hours": pb.PUSH_DECISION_QUIET_HOURS, "rate_limited": pb.PUSH_DECISION_RATE_LIMITED,
             "no_tokens": pb.PUSH_DECISION_NO_TOKENS}


class ServiceRpcs:
    social: Any
    pushes: Any
    keys: Any

    async def PostNotifications(self, request: pb.PostNotificationsRequest,
                                context: Context) -> pb.PostNotificationsResponse:
        async with statuses(context):
            poster = self._service(context, POSTERS, accounts=True).subject
            check_batch(len(request.notifications))
            now = self.social.inbox.clock()
            drafts = [checked(f"notifications[{i}]", n.notification_id, n.recipient_player_id, n.kind, n.text_key,
                              dict(n.args), n.player_id, n.match_id, n.room_id, n.invite_id,
                              n.expires_at.ToNanoseconds() / 1e9 if n.HasField("expires_at") else None, now)
                      for i, n in enumerate(request.notifications)]
            for i, draft in enumerate(drafts):
                if draft.kind not in POSTER_KINDS[poster]:
                    raise InvalidRequest(f"the {poster} service does not post this kind", f"notifications[{i}].kind")
                if draft.kind in FROM_A_PLAYER and not draft.player_id:
                    raise InvalidRequest("player_id is required: the player this notification comes from",
                                         f"notifications[{i}].player_id")
            return pb.PostNotificationsResponse(stored=await run(self.social.inbox.post, drafts))

    async def CheckRelations(self, request: pb.CheckRelationsRequest,
                             context: Context) -> pb.CheckRelationsResponse:
        async with statuses(context):
            self._service(context, RELATIONS_ASKERS)
            others = list(request.others)
            if len(others) > MAX_OTHERS:
                raise InvalidRequest(f"at most {MAX_OTHERS} others a call", "others")
            relations = await run(self.social.relations, request.player_id, others)
            return pb.CheckRelationsResponse(relations=[pb.Relation(player_id=other, friends=friends, blocked=blocked)
                                                        for other, friends, blocked in relations])

    async def ClaimPush(self, request: pb.ClaimPushRequest, context: Context) -> pb.ClaimPushResponse:
        async with statuses(context):
            self._service(context, ("notifier",))
            try:
                notification_id = str(uuid.UUID(request.notification_id))
                if len(request.notification_id) != 36:
                    raise ValueError
            except ValueError:
                raise InvalidRequest("notification_id must be a UUID", "notification_id") from None
            if len(request.claim_id) > 64:
                raise InvalidRequest("claim_id is at most 64 characters", "claim_id")
            claim = await run(self.social.inbox.claim, notification_id, self.pushes.decide_in, request.claim_id,
                              self.pushes.targets_in)
            if claim.decision == "gone":
                return pb.ClaimPushResponse(decision=pb.PUSH_DECISION_GONE)
            if claim.decision == "already_claimed":
                return pb.ClaimPushResponse(decision=pb.PUSH_DECISION_ALREADY_CLAIMED)
            if claim.decision != "send":
                return pb.ClaimPushResponse(decision=DECISIONS.get(claim.decision, pb.PUSH_DECISION_NO_TOKENS))
            n = claim.notification
            named = [p for p in (n.recipient_id, n.player_id) if p]
            names = await run(self.social.directory.display_names, named)
            return pb.ClaimPushResponse(decision=pb.PUSH_DECISION_SEND, notification=notification_pb(n),
                                        recipient_player_id=n.recipient_id,
                                        targets=[push_target_pb(t) for t in claim.targets],
                                        display_names={p: names[p] for p in named if p in names})

    def _service(self, context: Context, subjects: tuple[str, ...], accounts: bool = False) -> Identity:
        who: Identity = bearer_identity(context.invocation_metadata(), self.keys)
        if who.role == "service" and who.subject in subjects:
            return who
        if accounts and who.role == "account" and who.subject == ACCOUNT_SERVICE:
            return who
        raise AuthError("this call is for the services that tell players what happens", "WRONG_CALLER")
