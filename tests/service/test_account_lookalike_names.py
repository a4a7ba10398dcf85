"""The red team's look-alike names over gRPC (issue 34): a real server, SQLite, the name a
player already holds, and the same name written to look alike."""

from __future__ import annotations

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb

from .account_harness import bearer, running_accounts


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("accounts")) as service:
        yield service


def refused(svc, call, code: grpc.StatusCode) -> str:
    before = svc.app.store.dump()
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert svc.app.store.dump() == before
    return caught.value.details()


def test_a_whole_cyrillic_look_alike_of_a_held_name_is_taken(svc):
    svc.sign_up("Alice")
    refused(svc, lambda: svc.sign_up("\u0410\u04cf\u0456\u0441\u0435"), grpc.StatusCode.ALREADY_EXISTS)


def test_a_capital_i_for_a_small_l_is_taken(svc):
    svc.sign_up("Carla5512")
    refused(svc, lambda: svc.sign_up("CarIa5512"), grpc.StatusCode.ALREADY_EXISTS)


def test_a_rename_to_a_latin_name_with_a_cyrillic_letter_says_which_alphabets_it_mixes(svc):
    session = svc.sign_up("Mixer One")
    details = refused(svc, lambda: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name="Mix\u0435r Two"),
                                                           metadata=bearer(session)), grpc.StatusCode.INVALID_ARGUMENT)
    assert details == "This name mixes alphabets (Latin and Cyrillic); use one"


def test_a_name_with_a_variation_selector_is_invalid_argument(svc):
    details = refused(svc, lambda: svc.sign_up("Selector5512\ufe0f"), grpc.StatusCode.INVALID_ARGUMENT)
    assert details == "A name can't contain invisible characters"
