"""Signed chain heads: what a player keeps so that nobody can later rewrite their match
(docs/record.md, "Signed heads"; docs/security.md).

The match service signs the chain's head (its last link, chain.py) at every version a
player sees, with an Ed25519 key. A head names the key by its id (the first 16 hex digits
of SHA-256 over the raw public key), and the keys ever used are published with the
period each was in use, so a key can be rotated and old heads still verify. A head proves
what the log held at that version even against someone who holds the signing key: a
rewritten log cannot hash to a head a player already keeps.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from services.common.private_files import private_directory, write_private

from .chain import canonical
from .untrusted_json import parse

HEAD = "domino-head/1"
KEYS = "domino-keys/1"
HEADS = "domino-heads/1"
PRIVATE_FILE = "heads.key"
PUBLISHED_FILE = "heads-keys.json"
_HEX = set("0123456789abcdef")


class BadHead(ValueError):
    """A head (or a key file) that is not well formed."""


@dataclass(frozen=True)
class Head:
    match: str
    version: int
    entries: int
    hash: str
    key: str
    signed_at: int
    signature: str = ""  # base64 of the Ed25519 signature over ``payload()``

    def payload(self) -> bytes:
        return canonical({"format": HEAD, "match": self.match, "version": self.version, "entries": self.entries,
                          "hash": self.hash, "key": self.key, "signed_at": self.signed_at})

    def to_json(self) -> dict:
        return {"match": self.match, "version": self.version, "entries": self.entries, "hash": self.hash,
                "key": self.key, "signed_at": self.signed_at, "signature": self.signature}

    @classmethod
    def from_json(cls, data: Any) -> "Head":
        if not isinstance(data, dict):
            raise BadHead("a head must be a JSON object")
        try:
            head = cls(**{name: data[name] for name in cls.__dataclass_fields__})
        except KeyError as e:
            raise BadHead(f"a head needs {e.args[0]!r}") from None
        for name, kind in (("match", str), ("version", int), ("entries", int), ("hash", str), ("key", str),
                           ("signed_at", int), ("signature", str)):
            value = getattr(head, name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise BadHead(f"a head's {name!r} must be {'a string' if kind is str else 'an integer'}")
            if isinstance(value, int) and not 0 <= value <= 2**53:  # versions, counts and unix seconds
                raise BadHead(f"a head's {name!r} must be a whole number from 0 to 2**53")
        if len(head.hash) != 64 or not set(head.hash) <= _HEX:
            raise BadHead("a head's 'hash' must be 64 lowercase hex digits")
        return head


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


class Signer:
    """Signs heads with one key; each (match, version) is signed once and remembered, as
    every seat's view of a version carries the same head."""

    def __init__(self, private: Ed25519PrivateKey, clock: Callable[[], float] = time.time,
                 remember: int = 20_000) -> None:
        self._private = private
        self.key_id = key_id(private.public_key())
        self._clock = clock
        self._signed: OrderedDict[tuple[str, int], Head] = OrderedDict()
        self._remember = remember

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self._private.public_key()

    def head(self, match: str, version: int, entries: int, link: str) -> Head:
        key = (match, version)
        head = self._signed.get(key)
        if head is None or head.hash != link:
            at = int(self._clock())
            signature = self._private.sign(Head(match, version, entries, link, self.key_id, at).payload())
            head = Head(match, version, entries, link, self.key_id, at, base64.b64encode(signature).decode())
            self._signed[key] = head
            if len(self._signed) > self._remember:
                self._signed.popitem(last=False)
        return head


@dataclass(frozen=True)
class PublishedKey:
    id: str
    public: Ed25519PublicKey
    not_before: int | None = None  # unix seconds; None: no bound
    not_after: int | None = None

    def to_json(self) -> dict:
        raw = self.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"id": self.id, "public_key": base64.b64encode(raw).decode(), "not_before": self.not_before,
                "not_after": self.not_after}


class PublishedKeys:
    """The head keys anyone may check heads with: a `domino-keys/1` file, or one PEM public
    key (valid at any time)."""

    def __init__(self, keys: list[PublishedKey]) -> None:
        self.keys = {k.id: k for k in keys}

    @classmethod
    def load(cls, path: str | Path) -> "PublishedKeys":
        data = Path(path).read_bytes()
        if data.lstrip().startswith(b"-----BEGIN"):
            try:
                public = serialization.load_pem_public_key(data)
            except (ValueError, UnsupportedAlgorithm):
                raise BadHead(f"{path} is not a PEM public key") from None
            if not isinstance(public, Ed25519PublicKey):
                raise BadHead(f"{path} is not an Ed25519 public key")
            return cls([PublishedKey(key_id(public), public)])
        try:
            return cls.from_json(parse(data))  # a file anyone may hand the verifier (untrusted_json.py)
        except (ValueError, UnicodeDecodeError) as e:
            raise BadHead(f"{path}: {e}") from None

    @classmethod
    def from_json(cls, data: Any) -> "PublishedKeys":
        if not isinstance(data, dict) or data.get("format") != KEYS or not isinstance(data.get("keys"), list):
            raise BadHead(f"a key file is a {KEYS} object with a 'keys' list")
        keys = []
        for entry in data["keys"]:
            try:
                public = Ed25519PublicKey.from_public_bytes(base64.b64decode(entry["public_key"], validate=True))
                bounds = [entry.get("not_before"), entry.get("not_after")]
                if not all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds):
                    raise ValueError("not_before and not_after are unix seconds or null")
                published = PublishedKey(key_id(public), public, *bounds)
            except (KeyError, TypeError, ValueError) as e:
                raise BadHead(f"a published key is an object with 'public_key' (base64 of 32 bytes): {e}") from None
            if entry.get("id") not in (None, published.id):
                raise BadHead(f"published key {entry.get('id')!r} is not the id of its public key ({published.id})")
            keys.append(published)
        return cls(keys)

    def to_json(self) -> dict:
        return {"format": KEYS, "keys": [k.to_json() for k in self.keys.values()]}

    def problem(self, head: Head) -> str | None:
        """Why ``head``'s signature is not good, or None when it is."""
        key = self.keys.get(head.key)
        if key is None:
            return f"signed with key {head.key!r}, which is not published"
        if key.not_before is not None and head.signed_at < key.not_before or \
                key.not_after is not None and head.signed_at > key.not_after:
            return f"signed at {head.signed_at}, outside key {head.key}'s period of use"
        try:
            key.public.verify(base64.b64decode(head.signature, validate=True), head.payload())
        except (InvalidSignature, ValueError):
            return f"its signature does not verify with key {head.key}"
        return None


# ---- the key files of a deployment (DOMINO_KEYS_DIR) ----------------------------------------

def load_signer(directory: str | Path, clock: Callable[[], float] = time.time) -> Signer:
    """The signer of ``directory``'s `heads.key`, which must be published in its
    `heads-keys.json` (a head nobody can check would be worth nothing)."""
    where = Path(directory)
    try:
        private = serialization.load_pem_private_key((where / PRIVATE_FILE).read_bytes(), None)
    except (OSError, ValueError) as e:
        raise BadHead(f"cannot read the head signing key {where / PRIVATE_FILE}: {e}") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise BadHead(f"{where / PRIVATE_FILE} is not an Ed25519 private key")
    signer = Signer(private, clock)
    try:
        published = PublishedKeys.load(where / PUBLISHED_FILE)
    except OSError as e:
        raise BadHead(f"cannot read the published head keys {where / PUBLISHED_FILE}: {e}") from None
    if signer.key_id not in published.keys:
        raise BadHead(f"the head signing key {signer.key_id} is not in {where / PUBLISHED_FILE}")
    return signer


def rotate(directory: str | Path, now: float | None = None, overlap_seconds: int = 86_400) -> str:
    """A new signing key in ``directory``, in use from now; the old one's period of use ends
    ``overlap_seconds`` later, as processes not yet restarted still sign with it. Every key
    stays published. Returns the new key's id."""
    where = Path(directory)
    at = int(time.time() if now is None else now)
    published_path = where / PUBLISHED_FILE
    keys = PublishedKeys.load(published_path).keys if published_path.exists() else {}
    private = Ed25519PrivateKey.generate()
    new = PublishedKey(key_id(private.public_key()), private.public_key(), not_before=at)
    updated = [PublishedKey(k.id, k.public, k.not_before, at + overlap_seconds if k.not_after is None else k.not_after)
               for k in keys.values()] + [new]
    private_directory(where)
    key_path = where / PRIVATE_FILE
    tmp = write_private(key_path.with_suffix(".tmp"), private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    # published first: a head must never name an unpublished key
    write_private(published_path, json.dumps(PublishedKeys(updated).to_json(), indent=2) + "\n")
    tmp.replace(key_path)
    return new.id


def heads_file(match: str, heads: list[Head]) -> dict:
    """What a player keeps: every head their client received for one match."""
    return {"format": HEADS, "match": match, "heads": [h.to_json() for h in heads]}


def read_heads(data: Any) -> list[Head]:
    if not isinstance(data, dict) or data.get("format") != HEADS or not isinstance(data.get("heads"), list):
        raise BadHead(f"a heads file is a {HEADS} object with a 'heads' list")
    return [Head.from_json(h) for h in data["heads"]]
