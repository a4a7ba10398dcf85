"""A process that started and stopped the embedded PostgreSQL exits quietly."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import io, logging, sys
    from pathlib import Path
    from services.common.servers import start_postgres
    stream = io.StringIO()
    logging.basicConfig(level=logging.INFO, stream=stream)  # as a test's log capture does
    server = start_postgres(Path(sys.argv[1]) / "pgdata")
    server.stop()
    stream.close()  # closed before the interpreter's exit hooks run
""")


def test_a_stopped_embedded_postgres_logs_nothing_at_exit() -> None:
    root = Path(tempfile.mkdtemp(prefix="domino-test-pgexit-"))  # outside pytest's 0700 tree
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(root)], capture_output=True, text=True,
                              timeout=120, cwd=Path(__file__).parents[2])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert "Logging error" not in done.stderr
