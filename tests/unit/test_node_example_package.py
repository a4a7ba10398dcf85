"""The Node example (examples/node/) installs exactly what its lock file pins, takes the SDK
from this repository by path, and type-checks against the generated code as it now is."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "node"
TSC = ROOT / "sdk" / "typescript" / "node_modules" / ".bin" / "tsc"


def test_every_npm_package_of_the_example_is_pinned_and_the_sdk_is_this_repositorys():
    manifest = json.loads((EXAMPLE / "package.json").read_text())
    wanted = {name: version for group in ("dependencies", "devDependencies")
              for name, version in manifest.get(group, {}).items()}
    assert wanted.pop("@domino/sdk") == "file:../../sdk/typescript"
    assert {name: v for name, v in wanted.items() if not re.fullmatch(r"\d+\.\d+\.\d+", v)} == {}
    lock = json.loads((EXAMPLE / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
    assert lock["packages"]["node_modules/@domino/sdk"] == {"resolved": "../../sdk/typescript", "link": True}
    assert all("integrity" in entry for path, entry in lock["packages"].items()
               if path.startswith("node_modules/") and not entry.get("link"))


def test_the_node_example_type_checks_against_the_generated_sdk():
    assert (EXAMPLE / "node_modules" / "@types" / "node").exists(), "run `make install`: it runs `npm ci` in examples/node"
    result = subprocess.run([str(TSC), "--noEmit", "-p", str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
