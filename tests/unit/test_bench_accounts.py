"""bench/accounts.py's own parts that need no server: the callers' pools and the in-process
split of a use case's CPU (on a real SQLite file and a real OIDC issuer)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from domino.account.v1 import account_service_pb2 as pb
from tests.support.oidc_issuer import OidcIssuer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "accounts.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_accounts", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(module)  # puts the repository and bench/ on sys.path: undone below
    finally:
        sys.path[:] = path
    return module


class _Stub:
    SignInWithDevice = "SignInWithDevice"
    SignInWithIdToken = "SignInWithIdToken"
    RefreshSession = "RefreshSession"


def _session(refresh: str) -> SimpleNamespace:
    return SimpleNamespace(session=pb.Session(player_id="a", refresh_token=refresh))


def test_the_pools_rotate_refresh_tokens_and_reuse_the_devices_they_made(bench) -> None:
    pools = bench.Pools(issuer=None)
    assert pools.next_call("returning_device", _Stub) is None  # no device yet
    assert pools.next_call("refresh", _Stub) is None
    method, request, then = pools.next_call("device", _Stub)
    assert method == "SignInWithDevice" and 16 <= len(request.device_id) <= 128 and len(request.device_secret) == 64
    then(_session("rt-1"))
    method, again, then = pools.next_call("returning_device", _Stub)
    assert (again.device_id, again.device_secret) == (request.device_id, request.device_secret)
    then(_session("rt-2"))
    method, refresh, then = pools.next_call("refresh", _Stub)
    assert method == "RefreshSession" and refresh.refresh_token == "rt-1"
    then(_session("rt-3"))
    assert list(pools.refresh) == ["rt-2", "rt-3"]  # the used token is gone, its successor queued


def test_id_tokens_run_out_and_are_then_signed_in_with_again(bench) -> None:
    with OidcIssuer() as issuer:
        pools = bench.Pools(issuer)
        pools.sign_tokens(2)
        tokens = []
        for _ in range(2):
            method, request, then = pools.next_call("id_token", _Stub)
            assert (method, request.provider, request.nonce) == ("SignInWithIdToken", "google", "plain")
            tokens.append(request.id_token)
            then(None)
        assert pools.next_call("id_token", _Stub) is None  # bounded by the tokens signed
        assert pools.next_call("returning_id_token", _Stub)[1].id_token in tokens


def test_the_use_cases_cpu_is_split_into_store_token_and_verification(bench, tmp_path: Path) -> None:
    with OidcIssuer(tmp_path / "issuer") as issuer:
        env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "m.sqlite")}
        out = bench.app_cost(env, issuer, ("device", "returning_device", "id_token", "refresh"), 5, True, None)
    assert set(out["app_cpu_ms"]) == {"device", "returning_device", "id_token", "refresh"}
    for kind, parts in out["app_split_ms"].items():
        assert parts["store"] > 0 and parts["access_token"] > 0
        assert sum(parts.values()) == pytest.approx(out["app_cpu_ms"][kind], abs=1e-3)
        assert ("id_token_verify" in parts) == (kind == "id_token")
        assert sum(out["profile"][kind]["self_cpu_shares"].values()) == pytest.approx(1.0, abs=0.01)
