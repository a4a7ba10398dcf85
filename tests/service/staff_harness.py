"""Staff (the console's `operator` tokens) calling a match service on loopback: their tokens,
the MatchAdminService stub on the service's channel."""

from __future__ import annotations

from domino.admin.v1 import match_admin_service_pb2_grpc as admin_grpc
from services.common.auth import mint_token
from tests.support.keys import KEYS


def staff(*roles: str, subject: str = "staff-ada") -> tuple:
    """gRPC metadata with an operator token of a member of staff holding ``roles``."""
    token = mint_token(subject, KEYS, "operator", staff_roles=roles, staff_name="Ada Ops")
    return (("authorization", f"Bearer {token}"),)


def admin_stub(svc) -> admin_grpc.MatchAdminServiceStub:
    return admin_grpc.MatchAdminServiceStub(svc.channel)
