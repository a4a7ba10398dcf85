"""The ``--tls`` / ``--ca`` options of every command that calls a server over gRPC.

Locally (`domino up`) the services speak plaintext; behind the public edge (the Gateway of
deploy/k8s, docs/operations.md) only TLS reaches them. The same two options say which, for
the player's client, the auditor's export and the demo alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # grpc is imported only by the commands that call a server
    import grpc


def tls_options(command):
    """Adds ``--tls`` and ``--ca`` (passed as ``tls`` and ``ca``)."""
    command = click.option(
        "--ca", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, metavar="PATH",
        help="PEM file of the certificate(s) to trust for the server's (a private or self-signed one). "
             "Implies --tls.")(command)
    return click.option(
        "--tls", is_flag=True,
        help="Connect with TLS, checking the server's certificate against the public authorities (or --ca). "
             "Without it: plaintext, as the local system (`domino up`) speaks.")(command)


def credentials_of(tls: bool, ca: Path | None) -> grpc.ChannelCredentials | None:
    """TLS credentials when ``--tls`` or ``--ca`` was given, else None (plaintext)."""
    if not (tls or ca):
        return None
    from services.client.api import channel_credentials

    return channel_credentials(ca)
