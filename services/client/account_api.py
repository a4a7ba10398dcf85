"""The account service as the client uses it (domino.account.v1): the sign-ins, which carry
their own credentials, and the player's own account, with the session's token."""

from __future__ import annotations

from domino.account.v1 import account_service_pb2 as acc
from domino.account.v1 import account_service_pb2_grpc as acc_grpc

from .api import TokenSource, _Stub

NAMES_PER_CALL = 100  # GetDisplayNames takes at most this many ids
NAMES_TIMEOUT = 2.0  # a screen waits no longer than this for names: ids will do


class AccountApi(_Stub):
    def __init__(self, address: str, token: str | TokenSource = "", **kw) -> None:
        super().__init__(address, token, **kw)
        self.stub = acc_grpc.AccountServiceStub(self.channel)

    def sign_in_with_device(self, device_id: str, device_secret: str,
                            display_name: str = "") -> acc.SignInWithDeviceResponse:
        """Retried: a second call with the same pair signs in to the account the first made."""
        request = acc.SignInWithDeviceRequest(device_id=device_id, device_secret=device_secret,
                                              display_name=display_name)
        return self.call(self.stub.SignInWithDevice, request, retry=True, auth=False)

    def refresh(self, refresh_token: str) -> acc.RefreshSessionResponse:
        """Not retried: a lost answer has already retired the refresh token, and sending it
        again would end the session (the Session then signs in with the device instead)."""
        return self.call(self.stub.RefreshSession, acc.RefreshSessionRequest(refresh_token=refresh_token), auth=False)

    def account(self) -> acc.Account:
        return self.call(self.stub.GetAccount, acc.GetAccountRequest(), retry=True).account

    def set_display_name(self, display_name: str) -> acc.Account:
        return self.call(self.stub.SetDisplayName, acc.SetDisplayNameRequest(display_name=display_name)).account

    def display_names(self, player_ids: list[str], timeout: float = NAMES_TIMEOUT) -> dict[str, str]:
        """Names of up to NAMES_PER_CALL ids; those without one are left out."""
        request = acc.GetDisplayNamesRequest(player_ids=player_ids[:NAMES_PER_CALL])
        return dict(self.call(self.stub.GetDisplayNames, request, timeout=timeout).display_names)

    def sign_out(self) -> None:
        self.call(self.stub.SignOut, acc.SignOutRequest())

    def delete_account(self) -> acc.DeleteAccountResponse:
        return self.call(self.stub.DeleteAccount, acc.DeleteAccountRequest())

    def _probe(self):
        return self.stub.GetAccount, acc.GetAccountRequest()
