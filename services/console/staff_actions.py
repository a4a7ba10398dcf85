"""What the console records of its own actions: a log line, a metric, and for sign-ins and
sign-outs an operator log entry (RecordStaffAction; the services write their own entries for
bans, exports and the rest, in the same transaction as the change)."""

from __future__ import annotations

import logging

import grpc
from starlette.requests import Request

from domino.admin.v1 import player_admin_service_pb2 as admin_pb

from .staff import Staff

log = logging.getLogger("domino.console")


def acted(request: Request, staff: Staff, action: str, outcome: str, **details: object) -> None:
    """Logs and counts one action (outcome `ok`, `refused`, `failed`)."""
    request.app.state.metrics.actions.labels(action=action, outcome=outcome).inc()
    log.info("staff action", extra={"staff": staff.subject, "staff_name": staff.name, "action": action,
                                    "outcome": outcome, **details})


async def record(request: Request, staff: Staff, action: str, target: str = "", why: str = "") -> bool:
    """Writes an operator log entry for an action the console took itself; False (and a
    warning) when the account service could not take it: a sign-in goes on regardless."""
    clients = request.app.state.clients
    try:
        await clients.player_admin.RecordStaffAction(
            admin_pb.RecordStaffActionRequest(action=action, target=target, why=why[:500]),
            **clients.call_options(staff))
    except grpc.aio.AioRpcError as error:
        log.warning("operator log entry not written", extra={"staff": staff.subject, "action": action,
                                                             "code": error.code().name})
        return False
    return True
