"""The console refuses to start on a bad setting of any of its pages, not at their first load."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from services.common.auth import KeyRing


@pytest.mark.parametrize("setting", ["DOMINO_CONSOLE_SCRAPE_DEADLINE_SECONDS", "DOMINO_CONSOLE_WITNESS_SECONDS"])
def test_a_bad_page_setting_stops_the_console_at_start(tmp_path, setting):
    KeyRing.generate().write(tmp_path / "keys")
    env = {**os.environ, "DOMINO_KEYS_DIR": str(tmp_path / "keys"), setting: "99", "DOMINO_CONSOLE_ADDRESS": "127.0.0.1:0"}
    done = subprocess.run([sys.executable, "-m", "services.console"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and setting.removeprefix("DOMINO_CONSOLE_").lower() in done.stderr
