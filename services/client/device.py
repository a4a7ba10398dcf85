"""This terminal's device credentials: what makes it a phone to the account service.

A device id and a 256-bit secret are made up at first use and kept in a file only the user
can read (0600, in a 0700 directory): they are the only way back into a guest account, so
they are never sent anywhere but SignInWithDevice, and never rewritten once made. One file
per account-service address, so a local system and a deployed one are two accounts. The
refresh token is not kept here: signing in again with the pair is always possible."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


class DeviceFileError(Exception):
    """The credentials file exists but cannot be used: said, never overwritten (it may be the
    only way into an account)."""


def config_dir(given: str | Path | None = None) -> Path:
    """``--config-dir`` / DOMINO_CONFIG_DIR, else $XDG_CONFIG_HOME/domino or ~/.config/domino."""
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "domino"


def credentials_path(directory: Path, address: str) -> Path:
    return directory / f"device-{hashlib.sha256(address.encode()).hexdigest()[:12]}.json"


@dataclass
class Device:
    device_id: str
    device_secret: str
    player_id: str = ""  # the account it signed in to (empty: never yet, the name is still to be asked)
    path: Path | None = None

    @classmethod
    def load_or_create(cls, directory: Path, address: str) -> "Device":
        """The credentials kept for ``address``, or new ones written before any use (so a
        crash after the account was created cannot lose the way back into it)."""
        _private_dir(directory)
        path = credentials_path(directory, address)
        try:
            text = path.read_text()
        except FileNotFoundError:
            device = cls(secrets.token_urlsafe(24), secrets.token_hex(32), "", path)
            device._write()
            return device
        except OSError as e:
            raise DeviceFileError(f"cannot read {path}: {e.strerror or e}") from None
        try:
            data = json.loads(text)
            # "account_id": what files written before the API named the player one way called it
            player = data.get("player_id") or data.get("account_id") or ""
            device = cls(str(data["device_id"]), str(data["device_secret"]), str(player), path)
        except (ValueError, KeyError, TypeError):
            raise DeviceFileError(f"{path} is not a device credentials file; move it away to start as a new "
                                  "player") from None
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(FILE_MODE)  # copied in with looser rights: only the user may read a secret
        return device

    def remember(self, player_id: str) -> None:
        """Notes the account the pair signed in to: later starts sign in without asking."""
        if player_id and player_id != self.player_id:
            self.player_id = player_id
            self._write()

    def forget(self) -> None:
        """After the account was deleted: the next start makes a new device and account."""
        if self.path is not None:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass

    def _write(self) -> None:
        assert self.path is not None
        data = {"device_id": self.device_id, "device_secret": self.device_secret, "player_id": self.player_id}
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
            f.write("\n")
        os.replace(tmp, self.path)


def _private_dir(directory: Path) -> None:
    directory.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(directory.stat().st_mode) != DIRECTORY_MODE:
        directory.chmod(DIRECTORY_MODE)
