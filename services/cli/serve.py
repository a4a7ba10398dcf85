"""`domino serve`: run one service in the foreground (configuration: environment, see
services/common/config.py)."""

from __future__ import annotations

import click

from services.common.private_files import restrict_umask


@click.group()
def serve() -> None:
    """Run a service until SIGTERM/Ctrl-C."""
    restrict_umask()  # its stores, logs and keys are its user's alone (services/common/private_files.py)


@serve.command()
def match() -> None:
    """The match service: the authority for every match (gRPC)."""
    from services.match.bootstrap import main

    main()


@serve.command()
def relay() -> None:
    """The relay: publishes stored match events to NATS JetStream, in order, exactly once."""
    from services.match.bootstrap import relay_main

    relay_main()


@serve.command()
def bots() -> None:
    """The bot service: plays bot seats' turns from NATS through the match service's gRPC API."""
    from services.bots.bootstrap import main

    main()


@serve.command()
def matchmaking() -> None:
    """Matchmaking: private rooms, public tables and practice against bots (gRPC)."""
    from services.matchmaking.bootstrap import main

    main()


@serve.command()
def accounts() -> None:
    """The account service: sign-in by device or ID token, sessions, display names, deletion (gRPC)."""
    from services.accounts.bootstrap import main

    main()


@serve.command()
def social() -> None:
    """The social service: friend codes, friend requests, friends and blocks (gRPC)."""
    from services.social.bootstrap import main

    main()


@serve.command()
def edge() -> None:
    """The edge: gRPC-Web and Connect for browsers, forwarded to the gRPC services (HTTP/1.1)."""
    from services.edge.bootstrap import main

    main()


@serve.command()
def notifier() -> None:
    """The notifier: pushes notifications to phones (APNs, FCM) and posts "your turn" and results (NATS)."""
    from services.notifier.bootstrap import main

    main()
