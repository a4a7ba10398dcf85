"""MatchService.DescribeRules over gRPC: the registries' description (``describe.py``) to
any signed-in caller.

Its own servicer, so the rules' description needs nothing of the match application: it
answers from the registries alone, and ``serve_rules`` hands it to the service's servicer.
The authentication interceptor has verified and admitted the caller before it runs, as for
every MatchService call; the request holds nothing to check.
"""

from __future__ import annotations

import grpc

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import AuthError
from services.common.auth_interceptor import caller
from services.common.grpc_status import ErrorStatuses

from .describe import describe_rules

_STATUS = [(AuthError, grpc.StatusCode.UNAUTHENTICATED)]


class RulesServicer:
    async def DescribeRules(self, request: pb.DescribeRulesRequest,
                            context: grpc.aio.ServicerContext) -> pb.DescribeRulesResponse:
        async with ErrorStatuses(context, _STATUS):
            caller()  # served without the interceptor, refused rather than answered unchecked
            return describe_rules()


def serve_rules(servicer: object) -> None:
    """``servicer`` (the service's, which registers every RPC) answers DescribeRules with a
    RulesServicer's."""
    setattr(servicer, "DescribeRules", RulesServicer().DescribeRules)
