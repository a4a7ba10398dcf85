"""Fixtures of the console's tests: async tests run on asyncio (anyio's pytest plugin), and
one test OpenID Connect issuer serves each module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.oidc_issuer import OidcIssuer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def issuer() -> Iterator[OidcIssuer]:
    with OidcIssuer() as running:
        yield running
