"""MatchService.DescribeRules and GetHeadKeys over gRPC: the RPCs that need nothing of the
match application.

DescribeRules hands the registries' description (``describe.py``) to any signed-in caller:
it answers from the registries alone, and ``serve_rules`` hands it to the service's
servicer. The authentication interceptor has verified and admitted the caller before it
runs, as for every MatchService call; the request holds nothing to check. GetHeadKeys
answers the published head keys (``head_keys.py``) to anyone, token or not: the
interceptor lets it through (callers.OPEN_RPCS).
"""

from __future__ import annotations

import grpc

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import AuthError
from services.common.auth_interceptor import caller
from services.common.grpc_status import ErrorStatuses

from .describe import describe_rules
from .errors import StoreUnavailable
from .head_keys import HeadKeys

DOMAIN = "domino.match"
_STATUS = [(AuthError, grpc.StatusCode.UNAUTHENTICATED)]


class RulesServicer:
    async def DescribeRules(self, request: pb.DescribeRulesRequest,
                            context: grpc.aio.ServicerContext) -> pb.DescribeRulesResponse:
        async with ErrorStatuses(context, _STATUS, DOMAIN):
            caller()  # served without the interceptor, refused rather than answered unchecked
            return describe_rules()


class HeadKeysServicer:
    def __init__(self, keys: HeadKeys) -> None:
        self.keys = keys

    async def GetHeadKeys(self, request: pb.GetHeadKeysRequest,
                          context: grpc.aio.ServicerContext) -> pb.GetHeadKeysResponse:
        async with ErrorStatuses(context, [(StoreUnavailable, grpc.StatusCode.UNAVAILABLE)], DOMAIN):
            answer = pb.GetHeadKeysResponse()
            answer.CopyFrom(self.keys.response())  # a message of the caller's own
            return answer


def serve_rules(servicer: object, keys: HeadKeys | None = None) -> None:
    """``servicer`` (the service's, which registers every RPC) answers DescribeRules with a
    RulesServicer's and, given ``keys``, GetHeadKeys with a HeadKeysServicer's."""
    setattr(servicer, "DescribeRules", RulesServicer().DescribeRules)
    if keys is not None:
        setattr(servicer, "GetHeadKeys", HeadKeysServicer(keys).GetHeadKeys)
