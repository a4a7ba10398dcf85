"""`domino admin`: an operator's hand on accounts, straight on the account store (with the
services' persistence settings): whoever may run this may read that database anyway."""

from __future__ import annotations

import datetime

import click


def _app():
    from services.accounts.application import AccountApplication
    from services.accounts.store import AccountStore
    from services.common.auth import KeyRing
    from services.common.config import Settings, persistence_env

    store = AccountStore.for_env(persistence_env(Settings()))
    store.create()
    return AccountApplication(store, KeyRing())


def _until(text: str) -> float:
    """An ISO date or time (UTC unless it says otherwise), or a duration: 3d, 12h, 30m."""
    units = {"d": 86400, "h": 3600, "m": 60}
    if text[:-1].isdigit() and text[-1:] in units:
        return datetime.datetime.now(datetime.timezone.utc).timestamp() + int(text[:-1]) * units[text[-1]]
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter("give an ISO date or time (2027-01-31, 2027-01-31T18:00) or a duration "
                                 "(3d, 12h, 30m)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return when.timestamp()


@click.group()
def admin() -> None:
    """Operators' tools: ban and unban accounts."""


@admin.command()
@click.argument("account")
@click.option("--until", "until", required=True, help="When the ban ends: an ISO date/time (UTC) or 3d, 12h, 30m.")
@click.option("--reason", required=True, help="Why (shown to the player when a refresh is refused).")
def ban(account: str, until: str, reason: str) -> None:
    """Ban ACCOUNT (an account id): its refresh and matchmaking refuse it at once, and its
    access tokens die within their 15 minutes."""
    from services.accounts.errors import AccountError

    ends = _until(until)
    app = _app()
    try:
        app.ban(account, ends, reason)
    except AccountError as e:
        raise click.ClickException(str(e)) from None
    finally:
        app.store.close()
    click.echo(f"banned {account} until {datetime.datetime.fromtimestamp(ends, datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")


@admin.command()
@click.argument("account")
def unban(account: str) -> None:
    """Lift ACCOUNT's ban."""
    from services.accounts.errors import AccountError

    app = _app()
    try:
        app.unban(account)
    except AccountError as e:
        raise click.ClickException(str(e)) from None
    finally:
        app.store.close()
    click.echo(f"unbanned {account}")
