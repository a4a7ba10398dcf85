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


BUF = Path(sys.executable).parent / "buf"
BASELINE = ROOT / "api-baseline" / "domino-v1.binpb"


def buf_breaking(module: Path) -> subprocess.CompletedProcess:
    (module / "buf.yaml").write_text((ROOT / "buf.yaml").read_text())
    return subprocess.run([str(BUF), "breaking", "--against", str(BASELINE)], cwd=module, capture_output=True,
                          text=True, timeout=60)


def copy_of_the_api(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    return tmp_path


def test_the_api_is_compatible_with_its_baseline(tmp_path):
    result = buf_breaking(copy_of_the_api(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_renumbering_a_field_fails_the_breaking_check(tmp_path):
    module = copy_of_the_api(tmp_path)
    proto = module / "proto" / "domino" / "match" / "v1" / "match_service.proto"
    text = proto.read_text()
    field = "message PlayTileRequest {\n  string match_id = 1;\n  string request_id = 2;"
    assert field in text
    proto.write_text(text.replace(field, field.replace("request_id = 2", "request_id = 99"), 1))
    result = buf_breaking(module)
    assert result.returncode != 0 and "request_id" in result.stdout + result.stderr
