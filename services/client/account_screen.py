"""The menu's "Account": the player's name and what leads to the account, a new display
name, signing out, and deleting the account.

Deleting asks for the display name typed out, as a phone's settings do: a slip of one key
must not erase a player's history. The server wants a sign-in from the last five minutes
for it, which a terminal that has been open a while has not: it signs in again with the
device pair (no question to the player) and asks once more."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from domino.account.v1 import account_service_pb2 as acc

from . import lobby_screens, menu
from .account_api import AccountApi
from .api import ApiError
from .inbox import Inbox
from .names import Names
from .session import NAME_REFUSALS, Session
from .terminal import Output

ITEMS = [("1", "Change your display name"), ("2", "Sign out"), ("3", "Delete your account"), ("b", "Back")]


def account_text(account: acc.Account) -> Text:
    text = Text.assemble((" account ", "bold white on dark_green"), "  ", (account.display_name, "bold"),
                         (f"   (id {account.player_id})", "dim"))
    linked = len(account.identities)
    text.append(f"\nLinked identities: {linked}")
    if linked:
        text.append(f" ({', '.join(i.provider for i in account.identities)})")
    text.append(f" · devices: {account.devices}")
    if account.guest:
        text.append("\nA guest account: only this terminal's device key leads to it (kept in your config "
                    "directory).", style="dim")
    return text


@dataclass
class AccountScreen:
    api: AccountApi
    session: Session
    names: Names | None = None

    @property
    def display_name(self) -> str:
        return self.session.display_name

    def run(self, out: Output, inbox: Inbox) -> bool:
        """Until the player goes back; True when they are signed out (or deleted) and the
        client has nothing more to do."""
        while True:
            try:
                account = self.api.account()
            except ApiError as e:
                out.say(Text(f"Your account is not available: {e}", style="bold red"))
                return False
            out.say(account_text(account))
            out.say(lobby_screens.menu(ITEMS, "Account"))
            answer = _choose(out, inbox, [k for k, _ in ITEMS])
            if answer == "b":
                return False
            if answer == "1":
                self._rename(out, inbox)
            elif answer == "2" and self._sign_out(out, inbox, account):
                return True
            elif answer == "3" and self._delete(out, inbox, account):
                return True

    def _rename(self, out: Output, inbox: Inbox) -> None:
        while True:
            out.ask("New display name (3-20 characters; Enter keeps yours):")
            name = inbox.line().strip()
            if not name:
                return
            try:
                account = self.api.set_display_name(name)
            except ApiError as e:
                out.say(Text(e.message or str(e), style="bold red"))
                if e.reason in NAME_REFUSALS:
                    continue  # taken or malformed: another try
                return
            self.session.renamed(account.display_name)
            if self.names is not None:
                self.names.set(account.player_id, account.display_name)
            out.say(Text.assemble("You are now ", (account.display_name, "bold green"), "."))
            return

    def _sign_out(self, out: Output, inbox: Inbox, account: acc.Account) -> bool:
        """Signing out keeps the device key unless the player asks to forget it, told what
        that means: a guest account has no other way back in."""
        out.ask("Sign out of this terminal? [y/n] (n):")
        if not menu.yes(inbox.line(), default=False):
            return False
        if account.guest:
            out.say(Text("This is a guest account: only this terminal's device key leads back to it. Forgetting "
                         "this device loses the account, its name, history and ratings, for good (link an "
                         "identity first to keep it).", style="bold red"))
        else:
            linked = ", ".join(i.provider for i in account.identities)
            out.say(f"Forgetting this device deletes its key from your config directory; you can sign in again "
                    f"with your linked identity ({linked}).")
        out.ask("Forget this device too? [y/n] (n):")
        forget = menu.yes(inbox.line(), default=False)
        try:
            self.api.sign_out()
        except ApiError as e:
            out.say(Text(f"Could not sign out: {e}", style="bold red"))
            return False
        self.session.close("signed out")
        if forget:
            self.session.device.forget()
            out.say("Signed out, and this terminal's device key is deleted: the next `domino play` starts as a "
                    "new player.")
        else:
            out.say("Signed out. The next `domino play` signs this terminal in to the same account again (its "
                    "device key stays in your config directory).")
        return True

    def _delete(self, out: Output, inbox: Inbox, account: acc.Account) -> bool:
        out.say(Text("Deleting your account erases your name, your match history and your ratings. It cannot "
                     "be undone.", style="bold red"), soft_wrap=True)
        out.ask(f"Type your display name ({account.display_name}) to delete it, or Enter to keep it:")
        if inbox.line().strip() != account.display_name:
            out.say("Kept: nothing was deleted.")
            return False
        try:
            try:
                self.api.delete_account()
            except ApiError as e:
                if e.reason != "SIGN_IN_AGAIN":
                    raise
                self.session.sign_in()  # the sign-in was too long ago: a fresh one, then once more
                self.api.delete_account()
        except ApiError as e:
            out.say(Text(f"Could not delete your account: {e}", style="bold red"))
            return False
        self.session.close("the account was deleted")
        self.session.device.forget()
        out.say("Your account was deleted. The next `domino play` starts a new one.", soft_wrap=True)
        return True


def _choose(out: Output, inbox: Inbox, keys: list[str]) -> str:
    while True:
        out.ask(f"Choose [{'/'.join(keys)}] (b):")
        answer = menu.pick(inbox.line(), keys, "b")
        if answer is not None:
            return answer
        out.say(f"Please answer one of: {', '.join(keys)}.", style="red")
