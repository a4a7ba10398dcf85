"""Regenerates the Python gRPC code under domino/ from proto/ (`make proto`).

Generated code is committed and never edited by hand; tests/unit/test_generated_code.py
fails when it is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grpc_tools import protoc
import grpc_tools

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"


def generate(out: Path) -> list[Path]:
    protos = sorted(PROTO.rglob("*.proto"))
    include = Path(grpc_tools.__file__).parent / "_proto"
    args = ["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *map(str, protos)]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    written = []
    for proto in protos:
        package = proto.parent.relative_to(PROTO).parts
        for depth in range(1, len(package) + 1):
            init = out.joinpath(*package[:depth], "__init__.py")
            if not init.exists():
                init.write_text("")
        written += sorted(out.joinpath(*package).glob(f"{proto.stem}_pb2*.py*"))
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT)
    args = parser.parse_args()
    for path in generate(args.out):
        print(path.relative_to(args.out))


if __name__ == "__main__":
    sys.exit(main())
