"""The benches under bench/ are scripts, not a package: tests load one by its file name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(file_name: str) -> ModuleType:
    """bench/<file_name> as a module (registered in sys.modules, as its dataclasses look their
    module up), leaving sys.path as it was (a bench puts the repository first on it)."""
    spec = importlib.util.spec_from_file_location(f"bench_{Path(file_name).stem}", BENCH_DIR / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    path = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module
