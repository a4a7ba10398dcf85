"""The operator log (support, operators and auditors): newest first, a page at a time, filtered
by target, and its export as JSON Lines (each entry as the service answers it, hash included,
so a copy can be checked against the chain)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from google.protobuf.json_format import MessageToDict
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import player_admin_service_pb2 as admin_pb

from ..staff import Staff, signed_in
from ..staff_actions import acted

READERS = ("support", "auditor")  # operators may what support may
PAGE = 50
EXPORT_PAGE = 200
EXPORT_MOST = 100_000
MAX_FIELD = 200


def _filters(request: Request) -> tuple[str, str]:
    return (request.query_params.get("target", "").strip()[:MAX_FIELD],
            request.query_params.get("page_token", "")[:MAX_FIELD])


async def page(request: Request) -> Response:
    staff = await signed_in(request, READERS)
    target, token = _filters(request)
    clients = request.app.state.clients
    answer = await clients.player_admin.ListOperatorLog(
        admin_pb.ListOperatorLogRequest(page_size=PAGE, page_token=token, target=target),
        **clients.call_options(staff))
    return request.app.state.templates.TemplateResponse(request, "log.html", {
        "entries": answer.entries, "next_page_token": answer.next_page_token, "target": target,
        "first_page": not token})


async def export(request: Request) -> Response:
    staff = await signed_in(request, READERS)
    target, _ = _filters(request)
    first = await _page_of(request, staff, target, "")  # a refusal is a page, not a broken download
    acted(request, staff, "log_export", "ok", target=target)
    return StreamingResponse(_lines(request, staff, target, first), media_type="application/jsonl", headers={
        "Content-Disposition": 'attachment; filename="operator-log.jsonl"'})


async def _page_of(request: Request, staff: Staff, target: str, token: str) -> admin_pb.ListOperatorLogResponse:
    clients = request.app.state.clients
    return await clients.player_admin.ListOperatorLog(
        admin_pb.ListOperatorLogRequest(page_size=EXPORT_PAGE, page_token=token, target=target),
        **clients.call_options(staff))


async def _lines(request: Request, staff: Staff, target: str,
                 answer: admin_pb.ListOperatorLogResponse) -> AsyncIterator[bytes]:
    written = 0
    while True:
        for entry in answer.entries:
            yield (json.dumps(MessageToDict(entry, preserving_proto_field_name=True), ensure_ascii=False)
                   + "\n").encode()
        written += len(answer.entries)
        if not answer.next_page_token or not answer.entries or written >= EXPORT_MOST:
            return
        answer = await _page_of(request, staff, target, answer.next_page_token)


routes: list[BaseRoute] = [
    Route("/log", page, methods=["GET"], name="log"),
    Route("/log/export", export, methods=["GET"], name="log_export"),
]
