"""PlayerAdminService on the account service's test server (account_harness.py): its stub,
and the console's operator tokens for a member of staff holding some roles."""

from __future__ import annotations

from domino.admin.v1 import player_admin_service_pb2_grpc as admin_grpc
from services.common.auth import mint_token
from tests.support.keys import KEYS


def admin_stub(svc) -> admin_grpc.PlayerAdminServiceStub:
    return admin_grpc.PlayerAdminServiceStub(svc.channel)


def staff(*roles: str, subject: str = "oidc|ops-1", name: str = "Olive Ops") -> tuple:
    """Call metadata with the console's operator token for this member of staff (minted
    when called: it lives 5 minutes)."""
    token = mint_token(subject, KEYS, "operator", staff_roles=roles, staff_name=name)
    return (("authorization", f"Bearer {token}"),)


def operator() -> tuple:
    return staff("operator")


def support() -> tuple:
    return staff("support", subject="oidc|support-1", name="Sam Support")


def auditor() -> tuple:
    return staff("auditor", subject="oidc|auditor-1", name="Ada Auditor")


def viewer() -> tuple:
    return staff("viewer", subject="oidc|viewer-1", name="Vic Viewer")
