"""The TypeScript SDK (sdk/typescript/gen/) is generated, never stale, and type-checks.

Like the Python code (test_generated_code.py): regenerated into a temporary directory with
the pinned protoc-gen-es and compared file by file (`make proto` regenerates both).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "typescript"


def _installed() -> None:
    assert (SDK / "node_modules" / ".bin" / "protoc-gen-es").exists(), \
        "run `make install`: it runs `npm ci` in sdk/typescript"


def test_generated_typescript_matches_the_proto_files(tmp_path):
    _installed()
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_typescript.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "gen").rglob("*.ts")}
    committed = {p.relative_to(SDK): p.read_bytes() for p in (SDK / "gen").rglob("*.ts")}
    assert fresh.keys() == committed.keys(), "run `make proto`: generated TypeScript files differ"
    stale = [str(p) for p in fresh if fresh[p] != committed[p]]
    assert not stale, f"run `make proto`: stale generated TypeScript {stale}"


def test_the_typescript_sdk_and_the_test_page_type_check():
    _installed()
    result = subprocess.run([str(SDK / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", str(SDK)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_npm_package_is_pinned_to_one_version():
    manifest = json.loads((SDK / "package.json").read_text())
    ranges = {name: version for group in ("dependencies", "devDependencies")
              for name, version in manifest.get(group, {}).items() if not re.fullmatch(r"\d+\.\d+\.\d+", version)}
    assert ranges == {}
    lock = json.loads((SDK / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
    assert all("integrity" in entry for path, entry in lock["packages"].items() if path)
