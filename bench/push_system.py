"""The system the push benches measure: a fake APNs and the services that reach it, with the
limits that would otherwise throttle a bench (pushes a minute, commands a second) lifted and
the notifier's "your turn" grace at zero, in a directory removed afterwards."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from services.common.supervisor import NOTIFIER, LocalSystem, Ports
from tests.support.fake_apns import running_apns

UNTHROTTLED = {"DOMINO_LOG_LEVEL": "WARNING", "DOMINO_PUSH_PER_MINUTE": "1000000",
               "DOMINO_COMMAND_RATE": "1000000", "DOMINO_COMMAND_BURST": "1000000"}


@contextmanager
def push_system(name: str, services: tuple[str, ...]) -> Iterator[tuple[LocalSystem, Any]]:
    """(the running system, the fake APNs) with ``services`` and the notifier started."""
    var = Path(tempfile.mkdtemp(prefix=f"domino-bench-{name}-"))
    try:
        with running_apns(var / "apns") as fake:
            notifier_env = fake.notifier_env(DOMINO_NOTIFIER_TURN_GRACE_SECONDS="0")
            with LocalSystem(var / "system", Ports.free(), services=(*services, NOTIFIER),
                             extra_env=UNTHROTTLED, notifier_env=notifier_env) as system:
                yield system, fake
    finally:
        shutil.rmtree(var, ignore_errors=True)
