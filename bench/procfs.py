"""What the benches read about processes and the run, from /proc and git: CPU (utime +
stime, so a figure does not rest on a noisy machine's wall clock), memory, the load, the
percentiles they report, and the commit a run measured."""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parent.parent


def pct(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None when empty."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, min(len(s) - 1, math.ceil(q / 100.0 * len(s)) - 1))]


def proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process (all its threads); 0 if it is gone."""
    fields = proc_stat(pid)
    return _cpu(fields) if fields else 0.0


def _children(parent: int) -> dict[int, list[str]]:
    """The live children of a process, each with its stat fields."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = proc_stat(int(entry))
            if fields and int(fields[1]) == parent:
                children[int(entry)] = fields
    return children


def child_pids(parent: int) -> list[int]:
    """The live children of a process (a wrapper's: the program it runs)."""
    return list(_children(parent))


def children_cpu_seconds(parent: int) -> float:
    """CPU of a process's live children (PostgreSQL's backends and helpers), plus what its
    exited children left in its cutime/cstime."""
    total = sum(_cpu(fields) for fields in _children(parent).values())
    fields = proc_stat(parent)
    if fields:
        total += (int(fields[13]) + int(fields[14])) / CLK_TCK
    return total


def tree_cpu_seconds(parent: int) -> float:
    """CPU of a process, its live children and its exited children."""
    return cpu_seconds(parent) + children_cpu_seconds(parent)


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in KB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def rss_kb(pid: int) -> int:
    """VmRSS of a process, in KB; 0 once it is gone."""
    try:
        return memory_kb(pid).get("VmRSS", 0)
    except OSError:
        return 0


def loadavg() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def git_commit() -> str | None:
    """The commit the run measured (with "+dirty" when the tree has changes), None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")
