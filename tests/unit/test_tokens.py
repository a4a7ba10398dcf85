"""What a token's kind and claims let it do, checked without a server."""

from __future__ import annotations

import time

import pytest

from services.common.auth import AuthError, KeyRing, mint_token, verify_token

KEYS = KeyRing.generate()


def test_a_token_issued_by_a_clock_a_little_ahead_of_ours_is_accepted():
    token = mint_token("p1", KEYS, now=time.time() + 5)
    assert verify_token(token, KEYS).subject == "p1"


def test_a_token_stamped_far_in_the_future_is_refused_whatever_its_lifetime():
    with pytest.raises(AuthError, match="future"):
        verify_token(mint_token("p4", KEYS, "operator", now=time.time() + 10 * 365 * 86400,
                                staff_roles=("operator",)), KEYS)


def test_an_expired_token_is_refused_whoever_issued_it():
    with pytest.raises(AuthError, match="expired"):
        verify_token(mint_token("p2", KEYS, now=time.time() - 16 * 60), KEYS)


def test_an_operator_token_carries_the_staff_members_roles_and_name():
    identity = verify_token(mint_token("oidc|ann", KEYS, "operator", staff_roles=("auditor", "support"),
                                       staff_name="Ann"), KEYS)
    assert identity.is_staff and identity.staff_roles == ("auditor", "support") and identity.staff_name == "Ann"


def test_an_operator_token_needs_a_staff_role():
    with pytest.raises(ValueError, match="staff_roles"):
        mint_token("oidc|ann", KEYS, "operator", staff_roles=("admin",))


def test_staff_claims_on_another_kind_of_token_give_no_staff_roles():
    assert verify_token(mint_token("p3", KEYS, staff_roles=("operator",)), KEYS).staff_roles == ()
