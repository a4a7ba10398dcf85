"""bench/procfs.py's readings of live processes, which every bench's CPU and memory figures
rest on: a wrapper's child is found, and a process that is gone reads as nothing rather
than failing a run."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.procfs import child_pids, rss_kb, tree_cpu_seconds


def test_a_process_child_is_found_and_its_cpu_counts_in_the_tree():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in child_pids(os.getpid())
        assert tree_cpu_seconds(os.getpid()) > 0
    finally:
        child.kill()
        child.wait()
    assert child.pid not in child_pids(os.getpid())


def test_resident_memory_is_read_and_a_gone_process_has_none():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert rss_kb(os.getpid()) > 0
    assert rss_kb(child.pid) == 0
