"""The golden replay corpus (tests/golden) and its generator, scripts/make_golden.py, loaded
as a module: the replay test asks it how a record is played through the aggregate, and the
family contract asks it which files a family's corpus holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"
SCRIPT = REPO / "scripts" / "make_golden.py"


def load_generator() -> ModuleType:
    loaded = sys.modules.get("make_golden")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location("make_golden", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its NamedTuple looks its module up)
    spec.loader.exec_module(module)
    return module
