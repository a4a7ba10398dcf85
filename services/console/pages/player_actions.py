"""What staff do to an account: ban, unban, end sessions, export data, delete.

Each is a form with a required "why" (for the operator log the service writes) that first
answers a confirmation page and acts only when that page's form is sent (`confirmed`). The
roles are checked here, before anything is asked of the service, and again by the service.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import player_admin_service_pb2 as admin_pb

from ..staff import Staff, signed_in
from ..staff_actions import acted

MAX_WHY, MAX_REASON = 500, 200


@dataclass(frozen=True)
class Action:
    name: str
    title: str
    role: str
    warning: str


ACTIONS = {action.name: action for action in (
    Action("ban", "Ban", "operator", "The player's refreshes and matchmaking are refused at once, until the date "
                                     "you give; their access tokens die within 15 minutes."),
    Action("unban", "Unban", "operator", "The player may sign in and play again at once."),
    Action("end-sessions", "End sessions", "support", "Every session of the player ends: each of their devices "
                                                      "must sign in again."),
    Action("export", "Export data", "support", "Downloads everything the account service holds of the player "
                                               "(the JSON their own export gives). The export is in the "
                                               "operator log."),
    Action("delete", "Delete account", "operator", "The account and its data are erased, as the player's own "
                                                   "deletion does. This cannot be undone."),
)}


class BadForm(Exception):
    pass


def _text(form: FormData, name: str, label: str, longest: int) -> str:
    value = str(form.get(name, "")).strip()
    if not value:
        raise BadForm(f"{label} is required.")
    if len(value) > longest:
        raise BadForm(f"{label} is at most {longest} characters.")
    return value


def _until(form: FormData) -> Timestamp:
    text = str(form.get("until", "")).strip()
    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise BadForm("Until must be a date (YYYY-MM-DD).") from None
    if day <= datetime.now(timezone.utc):
        raise BadForm("Until must be in the future.")
    stamp = Timestamp()
    stamp.FromDatetime(day)
    return stamp


async def act(request: Request) -> Response:
    action = ACTIONS.get(request.path_params["action"])
    if action is None:
        return Response("No such action.", 404)
    staff = await signed_in(request, action.role)
    player_id = request.path_params["player_id"]
    form = await request.form()
    fields = {name: str(form.get(name, "")) for name in ("why", "reason", "until")}
    try:
        why = _text(form, "why", "Why", MAX_WHY)
        if action.name == "ban":
            _text(form, "reason", "The reason shown to the player", MAX_REASON)
            _until(form)
    except BadForm as bad:
        return _confirm_page(request, action, player_id, fields, str(bad), 400)
    if form.get("confirmed") != "yes":
        return _confirm_page(request, action, player_id, fields, "", 200)
    try:
        answer = await _call(request, staff, action, player_id, why, form)
    except grpc.aio.AioRpcError as error:
        acted(request, staff, action.name, "refused" if error.code() != grpc.StatusCode.UNAVAILABLE else "failed",
              target=player_id, code=error.code().name)
        raise
    acted(request, staff, action.name, "ok", target=player_id)
    if action.name == "export":
        return Response(answer.data, media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="player-{_filename(player_id)}.json"'})
    request.session["done"] = {"ban": "Banned.", "unban": "Unbanned.", "delete": "Deleted.",
                               "end-sessions": f"Ended {getattr(answer, 'ended', 0)} sessions."}[action.name]
    return RedirectResponse(f"/players/{player_id}", 303)


async def _call(request: Request, staff: Staff, action: Action, player_id: str, why: str, form: FormData):
    clients = request.app.state.clients
    options = clients.call_options(staff)
    admin = clients.player_admin
    if action.name == "ban":
        return await admin.BanPlayer(admin_pb.BanPlayerRequest(
            player_id=player_id, reason=str(form["reason"]).strip(), until=_until(form), why=why), **options)
    if action.name == "unban":
        return await admin.UnbanPlayer(admin_pb.UnbanPlayerRequest(player_id=player_id, why=why), **options)
    if action.name == "end-sessions":
        return await admin.EndSessions(admin_pb.EndSessionsRequest(player_id=player_id, why=why), **options)
    if action.name == "export":
        return await admin.ExportPlayerData(admin_pb.ExportPlayerDataRequest(player_id=player_id, why=why), **options)
    return await admin.DeletePlayer(admin_pb.DeletePlayerRequest(player_id=player_id, why=why), **options)


def _filename(player_id: str) -> str:
    return "".join(c for c in player_id if c.isalnum() or c in "-_")[:64] or "player"


def _confirm_page(request: Request, action: Action, player_id: str, fields: dict[str, str], problem: str,
                  status: int) -> Response:
    return request.app.state.templates.TemplateResponse(request, "player_confirm.html", {
        "action": action, "player_id": player_id, "fields": fields, "problem": problem}, status_code=status)


routes: list[BaseRoute] = [Route("/players/{player_id}/{action}", act, methods=["POST"], name="player_action")]
