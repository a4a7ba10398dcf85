"""Regenerates the TypeScript SDK under sdk/typescript/gen/ from proto/ (`make proto`).

`buf generate` runs the protoc-gen-es that sdk/typescript/package-lock.json pins (`npm ci`
in sdk/typescript, which `make install` does) over the three APIs, and over google.rpc's
status, error details and codes, taken from the googleapis-common-protos package the
services use, so a client decodes the same ErrorInfo. Generated code is committed and never
edited by hand; tests/unit/test_generated_typescript.py fails when it is stale.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDK = ROOT / "sdk" / "typescript"
BUF = Path(sys.executable).parent / "buf"
# The staff's APIs are not the players': the SDK an app ships leaves them out.
ADMIN = ROOT / "proto" / "domino" / "admin"
GOOGLE_RPC = ("status.proto", "error_details.proto", "code.proto")


def google_rpc_protos() -> Path:
    import google.rpc

    return Path(next(iter(google.rpc.__path__)))


def generate(out: Path) -> list[Path]:
    """Writes `gen/` under ``out`` and returns the files written."""
    plugin = SDK / "node_modules" / ".bin" / "protoc-gen-es"
    if not plugin.exists():
        raise SystemExit(f"{plugin} is missing: run `make install` (npm ci in {SDK.relative_to(ROOT)})")
    target = out / "gen"
    if target.exists():
        shutil.rmtree(target)
    with tempfile.TemporaryDirectory() as work:
        vendored = Path(work) / "google" / "rpc"
        vendored.mkdir(parents=True)
        for name in GOOGLE_RPC:
            shutil.copy(google_rpc_protos() / name, vendored / name)
        (Path(work) / "buf.yaml").write_text("version: v2\n")
        for source, left_out in ((ROOT, ["--exclude-path", str(ADMIN)]), (Path(work), [])):
            subprocess.run([str(BUF), "generate", str(source), "--template", "buf.gen.yaml", "--output", str(out),
                            *left_out], cwd=SDK, check=True)
    return sorted(p for p in target.rglob("*.ts"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=SDK)
    args = parser.parse_args()
    for path in generate(args.out.resolve()):
        print(path.relative_to(args.out.resolve()))


if __name__ == "__main__":
    sys.exit(main())
