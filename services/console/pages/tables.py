"""The Tables page (viewer and up): the matches in play, and one of them watched as a
spectator watches it.

``GET /tables`` lists MatchAdminService.ListMatches (state IN_PLAY), filtered by family and
by a player's id, a page at a time. ``GET /tables/<match_id>`` shows one match;
``GET /tables/<match_id>/view`` is its table alone, which the page's htmx asks for every
few seconds. Each read opens MatchService.WatchMatch with the staff member's operator token,
takes the current view (the first message: for staff the match service sends the spectator's
view, one turn behind and without hands) and ends the stream at once, so no stream outlives
its request: a browser that goes away leaves nothing open.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import match_admin_service_pb2 as admin_pb
from domino.match.v1 import match_service_pb2 as pb
from services.common.bot_ids import is_bot
from services.rules import registry

from ..board_svg import board_from_view, draw_board
from ..match_evidence import MATCH_ID
from ..staff import Staff, signed_in

PAGE_SIZE = 25
REFRESH_SECONDS = 3
MOVE_WORDS = {pb.MOVE_KIND_PLAY: "played", pb.MOVE_KIND_DRAW: "drew", pb.MOVE_KIND_PASS: "passed"}
STATUS_WORDS = {pb.MATCH_STATUS_IN_PROGRESS: "in play", pb.MATCH_STATUS_ENDED: "ended",
                pb.MATCH_STATUS_ABANDONED: "abandoned", pb.MATCH_STATUS_WAITING_FOR_SEEDS: "waiting for seeds"}


async def listing(request: Request) -> Response:
    staff = await signed_in(request, "viewer")
    rules = request.query_params.get("rules", "").strip().lower()
    player = request.query_params.get("player", "").strip()
    token = request.query_params.get("page", "")
    problems = []
    if rules and rules not in registry.names():
        problems.append(f"A family is one of {', '.join(registry.names())}.")
    if len(player) > 128:
        problems.append("A player id is at most 128 characters.")
    if len(token) > 512:
        problems.append("That page link is not one of ours.")
    context: dict[str, Any] = {"rules": rules, "player": player, "problems": problems, "matches": [], "next": "",
                               "families": registry.names()}
    if problems:
        return request.app.state.templates.TemplateResponse(request, "tables.html", context, status_code=400)
    clients = request.app.state.clients
    answer = await clients.match_admin.ListMatches(
        admin_pb.ListMatchesRequest(state=admin_pb.MATCH_STATE_IN_PLAY, rules=rules, player_id=player,
                                    page_size=PAGE_SIZE, page_token=token), **clients.call_options(staff))
    context["matches"] = [_row(m) for m in answer.matches]
    context["next"] = answer.next_page_token
    context["first_page"] = not token
    return request.app.state.templates.TemplateResponse(request, "tables.html", context)


def _row(m: admin_pb.MatchListing) -> dict[str, Any]:
    return {"id": m.match_id, "rules": m.rules, "variant": m.variant, "teams": m.teams, "rated": m.rated,
            "players": [_seat_name(p) for p in m.player_ids], "scores": list(m.scores),
            "started": m.started_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S") if m.HasField("started_at") else "",
            "version": m.version}


def _seat_name(player_id: str) -> str:
    return f"{player_id} (bot)" if is_bot(player_id) else player_id


async def watch_page(request: Request) -> Response:
    staff = await signed_in(request, "viewer")
    match_id = _match_id(request)
    context = await _table(request, staff, match_id)
    return request.app.state.templates.TemplateResponse(request, "tables_watch.html", context,
                                                         status_code=404 if context.get("missing") else 200)


async def watch_view(request: Request) -> Response:
    staff = await signed_in(request, "viewer", refresh=True)
    context = await _table(request, staff, _match_id(request))
    return request.app.state.templates.TemplateResponse(request, "tables_view.html", context)


def _match_id(request: Request) -> str:
    match_id = request.path_params["match_id"]
    if not MATCH_ID.match(match_id):
        raise HTTPException(400, "not a match id")
    return match_id


async def current_view(request: Request, staff: Staff, match_id: str) -> pb.MatchView:
    """The match as WatchMatch shows staff now: its first message, then the stream is ended."""
    clients = request.app.state.clients
    call = clients.match.WatchMatch(pb.WatchMatchRequest(match_id=match_id), **clients.call_options(staff))
    try:
        async with asyncio.timeout(clients.deadline):
            async for message in call:
                if message.HasField("view"):
                    return message.view
        raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                   "the match service ended the stream before sending the table")
    finally:
        call.cancel()


async def _table(request: Request, staff: Staff, match_id: str) -> dict[str, Any]:
    context: dict[str, Any] = {"match_id": match_id, "refresh": REFRESH_SECONDS}
    try:
        view = await current_view(request, staff, match_id)
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            return {**context, "missing": True, "problem": "No match has this id."}
        return {**context, "problem": f"The match service answered {error.code().name}: {error.details() or ''}"}
    except TimeoutError:
        return {**context, "problem": "The match service did not answer in time."}
    context.update(_describe(view))
    return context


def _describe(view: pb.MatchView) -> dict[str, Any]:
    turn = view.turn if view.HasField("turn") else None
    sides = ["Seats 1 and 3", "Seats 2 and 4"] if view.teams else [f"Seat {i + 1}" for i in range(len(view.seats))]
    seats = [{"number": i + 1, "player": _seat_name(s.player_id), "tiles": s.tile_count, "away": s.away,
              "left": s.left, "turn": turn == i} for i, s in enumerate(view.seats)]
    actions = [_action_words(a) for a in view.round_actions][-8:]
    return {
        "view": view,
        "status": STATUS_WORDS.get(view.status, "unknown"),
        "board": draw_board(board_from_view(view), f"Table of match {view.match_id}"),
        "seats": seats,
        "scores": list(zip(sides, view.scores)),
        "turn": None if turn is None else turn + 1,
        "ends": [view.left_end if view.HasField("left_end") else None,
                 view.right_end if view.HasField("right_end") else None],
        "actions": actions,
    }


def _action_words(action: pb.PublicAction) -> str:
    words = f"Seat {action.seat + 1} {MOVE_WORDS.get(action.kind, 'moved')}"
    if action.kind == pb.MOVE_KIND_PLAY:
        words += f" {action.tile.low}-{action.tile.high}"
        if action.points:
            words += f" scoring {action.points}"
    if action.cause not in (pb.MOVE_CAUSE_UNSPECIFIED, pb.MOVE_CAUSE_SEAT):
        words += f" ({pb.MoveCause.Name(action.cause).removeprefix('MOVE_CAUSE_').replace('_', ' ').lower()})"
    return words


routes: list[BaseRoute] = [
    Route("/tables", listing, methods=["GET"], name="tables"),
    Route("/tables/{match_id}", watch_page, methods=["GET"], name="table"),
    Route("/tables/{match_id}/view", watch_view, methods=["GET"], name="table_view"),
]
