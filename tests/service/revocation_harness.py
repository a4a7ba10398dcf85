"""The three services a signed-out phone meets, each real and on loopback: the account
service (a real SQLite store, tests/service/account_harness.py), a match service and
matchmaking, each with its own revocation list reading the account service over gRPC, as
their processes do. ``poll()`` runs one step of both lists, on their servers' own loops,
where a timer would run them."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domino.account.v1 import account_service_pb2 as acc
from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc
from services.common.changes import ChangeFeed
from services.common.revocations import Revocations
from services.common.revocations_client import GrpcRevocationSource
from services.match.application import MatchApplication
from services.match.bootstrap import create_server as match_server
from services.match.heads import Signer
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.bootstrap import create_server as matchmaking_server
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth

from .account_harness import AccountService, bearer, device, running_accounts
from .harness import UNLIMITED, Service

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@dataclass
class Services:
    accounts: AccountService
    match: Service
    matchmaking: Any  # MatchmakingServiceStub
    lists: tuple[tuple[Revocations, asyncio.AbstractEventLoop], ...]  # the match service's, matchmaking's

    def poll(self) -> None:
        """One step of every process's revocation list, as its timer runs it."""
        for revocations, loop in self.lists:
            assert asyncio.run_coroutine_threadsafe(revocations.step(), loop).result(10)

    def seat(self, *sessions: acc.Session, request_id: str) -> str:
        """A match (created by matchmaking's service token) whose seats are these accounts'."""
        players = [s.player_id for s in sessions] + [f"other-{i}" for i in range(2 - len(sessions))]
        request = match_pb.CreateMatchRequest(request_id=request_id, rules="egyptian", variant="draw-2",
                                              seats=[match_pb.SeatSpec(player_id=p, client_seed="s") for p in players])
        return self.match.stub.CreateMatch(request, metadata=auth("matchmaking", "service")).view.match_id

    def room(self, session: acc.Session, request_id: str) -> str:
        return self.matchmaking.CreateRoom(mm.CreateRoomRequest(request_id=request_id, variant="block-4"),
                                           metadata=bearer(session)).room.room_id


def status_of(call) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def ended_with(stream) -> grpc.StatusCode:
    """How an open stream ends (its call has a deadline, so one that never ends says so)."""
    try:
        for _ in stream:
            pass
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


@contextmanager
def running_services(tmp_path: Path) -> Iterator[Services]:
    with running_accounts(tmp_path) as accounts:
        address = f"127.0.0.1:{accounts.port}"
        match_list, matchmaking_list = Revocations(GrpcRevocationSource(address)), \
            Revocations(GrpcRevocationSource(address))
        app = MatchApplication(env=POPO)
        signer = Signer(Ed25519PrivateKey.generate())

        def match():
            return match_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=UNLIMITED(), signer=signer,
                                revocations=match_list)

        changes = ChangeFeed()
        rooms = MatchmakingApplication(env=POPO, on_change=changes.publish)

        def matchmaking():
            return matchmaking_server("127.0.0.1:0", rooms, KEYS, changes, None, 0.2, UNLIMITED(),
                                      revocations=matchmaking_list)

        with serving_in_background(match) as (match_port, match_loop), \
                serving_in_background(matchmaking, mark_serving=True) as (mm_port, mm_loop), \
                grpc.insecure_channel(f"127.0.0.1:{mm_port}") as channel:
            services = Services(accounts, Service(app, match_port, match_loop), mm_grpc.MatchmakingServiceStub(channel),
                                ((match_list, match_loop), (matchmaking_list, mm_loop)))
            try:
                yield services
            finally:
                services.match.channel.close()
                for revocations, loop in services.lists:
                    assert isinstance(revocations.source, GrpcRevocationSource)
                    asyncio.run_coroutine_threadsafe(revocations.source.close(), loop).result(10)


# ---- the ways a session ends, each as the phone (or the thief's victim) ends it --------------

NONCE = "n-0123456789"


def signed_out(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    svc.stub.SignOut(acc.SignOutRequest(), metadata=bearer(session))


def signed_out_everywhere(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    other = svc.stub.SignInWithDevice(acc.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1])).session
    svc.stub.SignOutEverywhere(acc.SignOutEverywhereRequest(), metadata=bearer(other))


def refresh_token_reused(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    svc.stub.RefreshSession(acc.RefreshSessionRequest(refresh_token=session.refresh_token))
    assert status_of(lambda: svc.stub.RefreshSession(acc.RefreshSessionRequest(
        refresh_token=session.refresh_token))) == grpc.StatusCode.UNAUTHENTICATED  # a copy came back


def account_deleted(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    svc.stub.DeleteAccount(acc.DeleteAccountRequest(), metadata=bearer(session))


def device_removed(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    subject = f"apple-{pair[0][:12]}"
    svc.stub.LinkIdentity(acc.LinkIdentityRequest(provider="apple", id_token=svc.id_token("apple", subject),
                                                  nonce=NONCE), metadata=bearer(session))
    with_apple = svc.stub.SignInWithIdToken(acc.SignInWithIdTokenRequest(
        provider="apple", id_token=svc.id_token("apple", subject), nonce=NONCE)).session
    svc.stub.RemoveDevice(acc.RemoveDeviceRequest(device_id=pair[0]), metadata=bearer(with_apple))


def device_secret_rotated(svc: AccountService, session: acc.Session, pair: tuple[str, str]) -> None:
    """The owner rotates from another session of the same device: the copy's (this) ends."""
    owner = svc.stub.SignInWithDevice(acc.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1])).session
    svc.stub.RotateDeviceSecret(acc.RotateDeviceSecretRequest(device_id=pair[0], device_secret=pair[1],
                                                              new_device_secret=device()[1]), metadata=bearer(owner))


ENDINGS = {f.__name__: f for f in (signed_out, signed_out_everywhere, refresh_token_reused, account_deleted,
                                   device_removed, device_secret_rotated)}
