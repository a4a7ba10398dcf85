"""Players (support and operators): search by display name or player id, and an account's page
(sign-in methods, devices, sessions, standing, bans, ratings, recent matches) with its actions
(pages/player_actions.py)."""

from __future__ import annotations

import grpc
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import match_admin_service_pb2 as match_admin_pb
from domino.admin.v1 import player_admin_service_pb2 as admin_pb

from ..staff import signed_in
from . import player_actions

MAX_QUERY = 64


def standing_name(value: int) -> str:
    return admin_pb.Standing.Name(value).removeprefix("STANDING_").lower()


async def search(request: Request) -> Response:
    staff = await signed_in(request, "support")
    query = request.query_params.get("q", "").strip()
    clients = request.app.state.clients
    found, problem = [], ""
    if len(query) > MAX_QUERY:
        problem = f"A search is at most {MAX_QUERY} characters."
    elif query:
        answer = await clients.player_admin.FindPlayers(admin_pb.FindPlayersRequest(query=query, page_size=50),
                                                        **clients.call_options(staff))
        found = list(answer.players)
    return request.app.state.templates.TemplateResponse(
        request, "players.html", {"query": query, "found": found, "problem": problem, "standing": standing_name},
        status_code=400 if problem else 200)


async def account(request: Request) -> Response:
    staff = await signed_in(request, "support")
    player_id = request.path_params["player_id"]
    clients = request.app.state.clients
    described = await clients.player_admin.DescribePlayer(admin_pb.DescribePlayerRequest(player_id=player_id),
                                                          **clients.call_options(staff))
    play, play_problem = None, ""
    try:
        play = await clients.match_admin.DescribePlayerPlay(
            match_admin_pb.DescribePlayerPlayRequest(player_id=player_id, recent=20), **clients.call_options(staff))
    except grpc.aio.AioRpcError as error:
        play_problem = f"Ratings and matches are not available now ({error.code().name})."
    return request.app.state.templates.TemplateResponse(request, "player.html", {
        "player_id": player_id, "described": described, "play": play, "play_problem": play_problem,
        "standing": standing_name, "may_operate": staff.may("operator"),
        "done": request.session.pop("done", ""),
        "match_state": lambda v: match_admin_pb.MatchState.Name(v).removeprefix("MATCH_STATE_").lower().replace(
            "_", " ")})


routes: list[BaseRoute] = [
    Route("/players", search, methods=["GET"], name="players"),
    Route("/players/{player_id}", account, methods=["GET"], name="player"),
    *player_actions.routes,
]
