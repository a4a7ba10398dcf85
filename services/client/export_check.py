"""An exported record checked as the player's evidence: with the head keys fetched from the
API (head_keys.py) and the heads this client kept (store.KeptHeads), by the project's
verifier, `domino audit verify`, run as a program of its own.

The client holds none of the server's code (it replays nothing itself): verifying a record
means replaying it through the rules engine, which is the verifier's job, the same tool a
player is told to run by hand (docs/record.md). What the client adds is what an app would:
the keys from the server it played on, and the heads it received while it played.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from . import head_keys
from .api import ApiError, MatchApi

VERIFY_SECONDS = 120.0
KEYS_FILE = "head-keys.json"

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def run_verifier(command: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(list(command), capture_output=True, text=True, timeout=VERIFY_SECONDS, check=False)


@dataclass(frozen=True)
class Checked:
    ok: bool  # valid, and authenticated by a signed head with a published key
    text: str  # one line for the player
    report: dict | None = None  # the verifier's JSON


def verifier_command() -> list[str]:
    """`domino audit verify`, with the interpreter running this client."""
    return [sys.executable, "-m", "services.cli", "audit", "verify"]


def _record_key(record_json: str) -> str:
    """The key id the record's signed head names ("" when it has none)."""
    try:
        head = (json.loads(record_json).get("chain") or {}).get("head") or {}
        return str(head.get("key", "")) if isinstance(head, dict) else ""
    except (ValueError, AttributeError):
        return ""


def fetch_keys(api: MatchApi, record_json: str):
    """The head keys (the session's answer; asked again when the record names a key it lacks)."""
    answer = api.head_keys()
    key = _record_key(record_json)
    if key and not head_keys.lists(answer, key):
        api.forget_head_keys()
        answer = api.head_keys()
    return answer


def check(api: MatchApi, record_json: str, record_path: Path, heads_path: Path | None, ended: bool = True,
          run: Runner = run_verifier) -> Checked:
    """Verifies the record at ``record_path`` (``record_json``: its text) with the keys the
    server publishes, written beside it, and the kept heads at ``heads_path`` when there are.
    A match not ``ended`` is checked as far as the seat may see: its links cannot be
    recomputed before the server's seed is revealed, so it cannot be authenticated yet."""
    try:
        answer = fetch_keys(api, record_json)
    except ApiError as e:
        return Checked(False, f"Not verified: the server's head keys could not be fetched ({e}).")
    try:
        keys_path = head_keys.save(record_path.parent / KEYS_FILE, answer)
    except OSError as e:
        return Checked(False, f"Not verified: could not write the head keys: {e}.")
    command = verifier_command() + [str(record_path), "--json"] + (["--key", str(keys_path)] if ended else [])
    if heads_path is not None and heads_path.exists():
        command += ["--heads", str(heads_path)]
    try:
        done = run(command)
        report = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        return Checked(False, f"Not verified: the verifier did not run ({e}).")
    return _verdict(report, done.returncode, keys_path, heads_path is not None and heads_path.exists(), ended)


def _verdict(report: dict, status: int, keys_path: Path, with_heads: bool, ended: bool) -> Checked:
    if status != 0 or not report.get("valid"):
        error = (report.get("error") or {}).get("message") or "the verifier refused it"
        return Checked(False, f"NOT verified: {error}", report)
    signature = (report.get("signature") or {}).get("status")
    heads = (report.get("heads") or {}).get("status")
    if ended:
        text = ("Verified: the record replays by the rules, and its signed head checks with the server's "
                f"published key ({keys_path})")
    else:
        text = "Checked so far: the record replays by the rules (a match in play is authenticated once it ends)"
    if with_heads:
        text += "; the heads your client kept agree with it" if heads == "ok" else f"; kept heads: {heads}"
    if not report.get("complete"):
        text += " (as far as your seat may see before the end)"
    return Checked(signature == "ok" or not ended, text + ".", report)
