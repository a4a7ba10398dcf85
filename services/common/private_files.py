"""The local run's files are readable by the user who runs it, and nobody else.

`var/` holds the match store (every match's server seeds, before they are revealed), the
signing and token keys, NATS's passwords and data, the logs and the players' exports. With a
usual umask (022) everything under it came out readable by every local user (directories
0755, files 0644): another account on the machine could read unrevealed seeds out of
`match.sqlite` and so know every hand. So `domino up` and `domino serve` set the umask to
077 before they create anything (NATS and the services they start inherit it), every
directory the system makes is 0700 and every file 0600, whatever the umask, and what an
earlier run left with looser modes is tightened at start-up (`tighten`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO

PRIVATE_UMASK = 0o077
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite gives them its database file's mode
_CREATING = threading.Lock()


def restrict_umask() -> int:
    """From now on, this process and its children create files for their user alone;
    returns the umask it had."""
    return os.umask(PRIVATE_UMASK)


def private_directory(path: str | Path) -> Path:
    """``path`` and the directories this makes on the way to it, 0700 each; an existing
    ``path`` is tightened too (its parents that existed are left alone)."""
    path = Path(path)
    missing = []
    for directory in (path, *path.parents):
        if directory.exists():
            break
        missing.append(directory)
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIRECTORY_MODE)
        except FileExistsError:
            pass
        os.chmod(directory, DIRECTORY_MODE)  # mkdir's mode goes through the umask
    _tighten_one(path)
    return path


def private_file(path: str | Path) -> Path:
    """``path`` exists (empty if new) and is 0600, before anyone writes to it: a database
    file SQLite is about to open.

    An existing file is never opened, only given its mode: closing a descriptor of a file
    drops every POSIX lock this process holds on it, SQLite's included, so opening and
    closing a database a live connection holds let another process think itself alone
    (it checkpointed and unlinked the write-ahead log under the account service). A new file
    is made with ``O_EXCL``, so the one closed is one no connection holds yet: another
    thread of this process comes through here before it connects, and waits until it is."""
    path = Path(path)
    private_directory(path.parent)
    with _CREATING:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except FileExistsError:
            pass
        os.chmod(path, FILE_MODE)
    return path


def private_sqlite(path: str | Path) -> None:
    """A SQLite database file (unless in memory or a URI) and the files beside it, 0600,
    before this connection opens it: SQLite makes its side files with the database's mode."""
    name = str(path)
    if not name or name == ":memory:" or name.startswith("file:"):
        return
    private_file(name)  # every connection of this process begins here, so none opens a file being made
    for suffix in SQLITE_SIDE_FILES:
        _tighten_one(Path(name + suffix))


def open_private(path: str | Path, mode: str = "ab") -> IO:
    """``open(path, mode)`` (appending or reading and appending), the file 0600."""
    flags = os.O_CREAT | (os.O_RDWR if "+" in mode else os.O_WRONLY) | (os.O_APPEND if "a" in mode else 0)
    private_directory(Path(path).parent)
    fd = os.open(path, flags, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, mode)


def write_private(path: str | Path, data: str | bytes) -> Path:
    """Replace ``path`` with ``data`` in one step, never visible with looser modes."""
    path = Path(path)
    private_directory(path.parent)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        os.write(fd, data.encode() if isinstance(data, str) else data)  # small files: one write
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


def tighten(root: str | Path) -> list[Path]:
    """Take group and other rights off ``root`` and everything under it (symbolic links
    not followed); returns what was changed."""
    root = Path(root)
    changed: list[Path] = []
    if not root.is_dir():
        return changed
    if _tighten_one(root):
        changed.append(root)
    for here, directories, files in os.walk(root):
        for name in directories:
            if _tighten_one(Path(here, name)):
                changed.append(Path(here, name))
        for name in files:
            if _tighten_one(Path(here, name)):
                changed.append(Path(here, name))
    return changed


def _tighten_one(path: Path) -> bool:
    """Whether ``path`` (not a link) gave its group or others any right, and no longer does."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if os.path.islink(path) or not mode & PRIVATE_UMASK:
        return False
    try:
        os.chmod(path, mode & 0o700)  # the owner's rights stay
    except OSError:
        return False  # not ours to change: left as it is
    return True
