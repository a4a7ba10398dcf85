"""The Matches pages: find a match (any staff), replay a finished one move by move beside its
evidence, and download its record or its evidence bundle (auditors only).

A replay is computed once per match and kept a minute (``_Replays``): stepping asks for one
step's fragment at a time (htmx), and each would otherwise export, verify and read the
witness again. Hands appear only on the replay pages, which only auditors reach; the list
shows none to anyone.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from google.protobuf.timestamp_pb2 import Timestamp
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import match_admin_service_pb2 as admin_pb
from domino.admin.v1 import player_admin_service_pb2 as player_pb
from services.match import record as record_format
from services.match.heads import BadHead, Head, read_heads
from services.match.untrusted_json import parse as parse_untrusted
from services.rules.registry import names as family_names

from ..board_svg import Board, draw_board
from ..evidence_bundle import bundle, exported_record
from ..match_evidence import MATCH_ID, EvidenceSettings, Gathered, gather
from ..replay import Replay, replay
from ..staff import Staff, signed_in

KEEP_SECONDS = 60.0
KEEP_AT_MOST = 16
STATES = {"": admin_pb.MATCH_STATE_UNSPECIFIED, "finished": admin_pb.MATCH_STATE_FINISHED,
          "in_play": admin_pb.MATCH_STATE_IN_PLAY}
STATE_WORDS = {admin_pb.MATCH_STATE_FINISHED: "finished", admin_pb.MATCH_STATE_IN_PLAY: "in play"}


class BadForm(ValueError):
    """A form field the console cannot act on (shown on the page, 400)."""


def _search_request(query) -> admin_pb.ListMatchesRequest:
    request = admin_pb.ListMatchesRequest(page_size=25)
    match_id = query.get("match_id", "").strip()
    if match_id and not MATCH_ID.match(match_id):
        raise BadForm("a match id is 36 characters: 8-4-4-4-12 lowercase hex digits")
    request.match_id = match_id
    request.player_id = query.get("player_id", "").strip()[:64]
    rules = query.get("rules", "")
    if rules and rules not in family_names():
        raise BadForm(f"family must be one of {', '.join(family_names())}")
    request.rules = rules
    state = query.get("state", "")
    if state not in STATES:
        raise BadForm("state must be finished, in play or any")
    request.state = STATES[state]
    for field, name, extra in (("started_after", "from", 0), ("started_before", "to", 1)):
        text = query.get(name, "")
        if text:
            try:
                day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
            except ValueError:
                raise BadForm(f"'{name}' must be a date (YYYY-MM-DD)") from None
            stamp = Timestamp()
            stamp.FromDatetime(day + timedelta(days=extra))  # "to" takes the whole day
            getattr(request, field).CopyFrom(stamp)
    request.page_token = query.get("page", "")[:512]
    return request


def _when(stamp: Timestamp, present: bool) -> str:
    return stamp.ToDatetime(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if present else ""


async def find(request: Request) -> Response:
    staff = await signed_in(request, "viewer")
    templates = request.app.state.templates
    query = request.query_params
    context: dict = {"title": "Matches", "query": query, "families": family_names(), "rows": [], "next": "",
                     "message": "", "searched": bool(query), "auditor": staff.may("auditor")}
    if not query:
        return templates.TemplateResponse(request, "matches.html", context)
    try:
        search = _search_request(query)
    except BadForm as e:
        return templates.TemplateResponse(request, "matches.html", {**context, "message": str(e)}, status_code=400)
    clients = request.app.state.clients
    answer = await clients.match_admin.ListMatches(search, **clients.call_options(staff))
    rows = [{"id": m.match_id, "rules": m.rules + (f" {m.variant}" if m.variant else ""),
             "teams": m.teams, "players": list(m.player_ids), "state": STATE_WORDS.get(m.state, "?"),
             "finished": m.state == admin_pb.MATCH_STATE_FINISHED, "scores": " / ".join(map(str, m.scores)),
             "started": _when(m.started_at, m.HasField("started_at")),
             "ended": _when(m.ended_at, m.HasField("ended_at")), "rated": m.rated} for m in answer.matches]
    following = {k: v for k, v in query.items() if k != "page"}
    return templates.TemplateResponse(request, "matches.html", {**context, "rows": rows,
                                                                "next": answer.next_page_token,
                                                                "following": following})


class _Replays:
    """Replays computed in the last minute, by match (a finished match does not change; an
    edit of its store shows within the minute)."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self._kept: OrderedDict[str, tuple[float, Gathered, Replay]] = OrderedDict()

    def get(self, match_id: str) -> tuple[Gathered, Replay] | None:
        kept = self._kept.get(match_id)
        if kept is None or self.clock() - kept[0] > KEEP_SECONDS:
            return None
        return kept[1], kept[2]

    def put(self, match_id: str, gathered: Gathered, result: Replay) -> None:
        self._kept[match_id] = (self.clock(), gathered, result)
        self._kept.move_to_end(match_id)
        while len(self._kept) > KEEP_AT_MOST:
            self._kept.popitem(last=False)


def _state(request: Request) -> tuple[_Replays, EvidenceSettings]:
    """The app's replays and evidence settings, made at first use (a test sets its own)."""
    state = request.app.state
    if not hasattr(state, "match_replays"):
        state.match_replays = _Replays()
    if not hasattr(state, "match_evidence"):
        state.match_evidence = EvidenceSettings()
    return state.match_replays, state.match_evidence


def _pasted_key(staff: Staff, match_id: str) -> str:
    """Where a replay with heads this member of staff pasted is kept: theirs alone."""
    return f"{match_id}|{staff.subject}"


class _Refused(Exception):
    """A page that refuses the request, raised from a helper and answered by ``_answering``."""

    def __init__(self, response: Response) -> None:
        super().__init__()
        self.response = response


def _answering(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    @functools.wraps(handler)
    async def answered(request: Request) -> Response:
        try:
            return await handler(request)
        except _Refused as refused:
            return refused.response
    return answered


async def _auditors_match(request: Request) -> tuple[Staff, str]:
    """The signed-in auditor and the match the path names (a 404 page for a malformed id)."""
    staff = await signed_in(request, "auditor")
    match_id = _match_id(request)
    if not match_id:
        raise _Refused(_not_found(request, "A match id is 8-4-4-4-12 lowercase hex digits."))
    return staff, match_id


def _replay_of(request: Request, gathered: Gathered) -> Replay:
    try:
        return replay(record_format.loads(gathered.record_json), gathered.keys, gathered.kept, gathered.witness)
    except record_format.MalformedRecord as e:
        raise _Refused(_malformed(request, e)) from None


async def _replayed(request: Request, staff: Staff, match_id: str) -> tuple[Gathered, Replay]:
    replays, settings = _state(request)
    kept = replays.get(_pasted_key(staff, match_id)) or replays.get(match_id)
    if kept is not None:
        return kept
    gathered = await gather(request.app.state.clients, settings, staff, match_id)
    result = _replay_of(request, gathered)
    replays.put(match_id, gathered, result)
    return gathered, result


def _match_id(request: Request) -> str:
    match_id = request.path_params["match_id"]
    return match_id if MATCH_ID.match(match_id) else ""


def _not_found(request: Request, why: str) -> Response:
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"title": "No such match", "message": why}, status_code=404)


def _malformed(request: Request, e: Exception) -> Response:
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"title": "The record is malformed",
                                "message": f"The match service's export is not a well-formed record: {e}"},
        status_code=502)


def _step_number(request: Request, result: Replay) -> int:
    last = len(result.steps) - 1
    text = request.query_params.get("move", "")
    if text.lstrip("-").isdigit():
        return max(0, min(int(text), last))
    return result.changed_at if result.changed_at is not None else 0


def _step_context(match_id: str, result: Replay, number: int) -> dict:
    step = result.steps[number]
    board = Board(step.board.line, step.board.spinner_at, step.board.up_line, step.board.down_line)
    return {"match_id": match_id, "step": step, "last": len(result.steps) - 1,
            "board": draw_board(board, f"The table after step {number}"), "seats": result.record.seats,
            "changed_at": result.changed_at, "teams": result.record.teams}


@_answering
async def replay_page(request: Request) -> Response:
    staff, match_id = await _auditors_match(request)
    gathered, result = await _replayed(request, staff, match_id)
    number = _step_number(request, result)
    context = {**_step_context(match_id, result, number), "title": f"Match {match_id}", "result": result,
               "gathered": gathered, "steps": result.steps}
    return request.app.state.templates.TemplateResponse(request, "match_replay.html", context)


@_answering
async def step_fragment(request: Request) -> Response:
    staff, match_id = await _auditors_match(request)
    _, result = await _replayed(request, staff, match_id)
    context = _step_context(match_id, result, _step_number(request, result))
    return request.app.state.templates.TemplateResponse(request, "match_step.html", context)


async def _why(request: Request) -> str:
    """The form's reason for the download, required: the operator log says why."""
    form = await request.form()
    why = str(form.get("why", "")).strip()
    if not why:
        raise _Refused(_refused_form(request, "say why you download it: the operator log keeps the reason"))
    return why[:400]


async def _recorded(request: Request, staff: Staff, match_id: str, what: str, why: str) -> None:
    """The download in the operator log (PlayerAdminService.RecordStaffAction)."""
    clients = request.app.state.clients
    await clients.player_admin.RecordStaffAction(
        player_pb.RecordStaffActionRequest(action="match.export", target=match_id, why=f"{what}: {why}"),
        **clients.call_options(staff))


def _refused_form(request: Request, message: str, title: str = "Not downloaded") -> Response:
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"title": title, "message": message}, status_code=400)


def _download(body: bytes | str, media_type: str, filename: str) -> Response:
    return Response(body, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


async def _downloading(request: Request, what: str) -> tuple[Staff, str, Gathered]:
    """The replayed match an auditor asked to download, with the entry written to the
    operator log."""
    staff, match_id = await _auditors_match(request)
    why = await _why(request)
    gathered, _ = await _replayed(request, staff, match_id)
    await _recorded(request, staff, match_id, f"{what} downloaded", why)
    return staff, match_id, gathered


@_answering
async def download_record(request: Request) -> Response:
    _, match_id, gathered = await _downloading(request, "record")
    return _download(exported_record(gathered.record_json), "application/json", f"match-{match_id}.json")


@_answering
async def download_evidence(request: Request) -> Response:
    staff, match_id, gathered = await _downloading(request, "evidence bundle")
    data = bundle(match_id, gathered.record_json, gathered.keys_json, gathered.kept, gathered.witnessed,
                  f"{staff.name} ({staff.subject})", datetime.now(timezone.utc))
    return _download(data, "application/zip", f"match-{match_id}-evidence.zip")


def _not_checked(request: Request, why: str) -> _Refused:
    return _Refused(_refused_form(request, why, "Not checked"))


def _pasted_heads(text: str, match_id: str, request: Request) -> list[Head]:
    try:
        pasted = [head for head in read_heads(parse_untrusted(text.encode())) if head.match == match_id]
    except (ValueError, BadHead) as e:
        raise _not_checked(request, f"those are not heads a player's app kept: {str(e)[:200]}") from None
    if not pasted:
        raise _not_checked(request, f"none of those heads is of match {match_id}")
    return pasted


@_answering
async def check_kept_heads(request: Request) -> Response:
    """The heads a player's app kept, pasted by the auditor (what a player disputing a match
    sends): once their signatures hold, the replay is checked against them as well as against
    any the console can read, for this member of staff's next minute of steps and downloads."""
    staff, match_id = await _auditors_match(request)
    pasted = _pasted_heads(str((await request.form()).get("heads", "")).strip(), match_id, request)
    gathered, _ = await _replayed(request, staff, match_id)
    if gathered.keys is None:
        raise _not_checked(request, "the match service's head keys could not be read: pasted heads cannot be "
                                    "told from forged ones now")
    forged = [(head, problem) for head in pasted if (problem := gathered.keys.problem(head))]
    if forged:
        raise _not_checked(request, f"the head of entry {forged[0][0].entries} was not signed by the match "
                                    f"service ({forged[0][1]}): not a head its app kept")
    gathered = replace(gathered, kept=[*(gathered.kept or []), *pasted])
    _state(request)[0].put(_pasted_key(staff, match_id), gathered, _replay_of(request, gathered))
    return RedirectResponse(f"/matches/{match_id}", status_code=303)


routes: list[BaseRoute] = [
    Route("/matches", find, methods=["GET"], name="matches"),
    Route("/matches/{match_id}", replay_page, methods=["GET"], name="match_replay"),
    Route("/matches/{match_id}/step", step_fragment, methods=["GET"], name="match_step"),
    Route("/matches/{match_id}/record", download_record, methods=["POST"], name="match_record"),
    Route("/matches/{match_id}/evidence", download_evidence, methods=["POST"], name="match_evidence"),
    Route("/matches/{match_id}/heads", check_kept_heads, methods=["POST"], name="match_kept_heads"),
]
