"""Generated gRPC code is never edited by hand and never stale (`make proto`)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_proto_files(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_proto.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*.py*") if "__pycache__" not in p.parts}
    committed = {p.relative_to(ROOT): p.read_bytes() for p in (ROOT / "domino").rglob("*.py*") if "__pycache__" not in p.parts}
    assert fresh.keys() == committed.keys(), "run `make proto`: generated files differ"
    stale = [str(p) for p in fresh if fresh[p] != committed[p]]
    assert not stale, f"run `make proto`: stale generated code {stale}"
