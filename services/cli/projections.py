"""`domino projections rebuild`: the history and ratings view built again from the events."""

from __future__ import annotations

import json

import click


@click.group()
def projections() -> None:
    """Views kept from the match events (history and ratings)."""


@projections.command()
def rebuild() -> None:
    """Drop the history and ratings tables and build them again from every stored match event
    (with the match service's persistence settings). Stop the relay first: it keeps them.
    Exit status 1 when a match's log is refused on replay: it is left out and named."""
    from services.common.config import Settings, persistence_env
    from services.match.history_projection import rebuild as rebuild_view
    from services.history.view import View
    from services.match.application import MatchApplication

    env = persistence_env(Settings())
    app = MatchApplication(env=env)
    try:
        built = rebuild_view(app, View.for_env(env))
    finally:
        app.close()
    click.echo(json.dumps(built))
    refused = built["results_refused"]
    if refused:  # built, but without these: an operator must look at each
        click.echo(f"{len(refused)} match(es) not recorded: replay refuses their stored log (a stored result that "
                   f"disagrees with the replay, or another edit). For each: domino audit repair-report MATCH. "
                   f"{' '.join(refused)}", err=True)
        raise SystemExit(1)
