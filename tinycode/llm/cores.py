"""How many threads llama.cpp computes with: the cores this process may use (each
physical core once), fewer while other processes keep some of them busy.

llama.cpp splits each step of the model across its threads and waits for the last of
them: a thread that shares its core with another busy process holds all of them up.
With two cores and one other busy process, the default model's rewrite of a window
took two to four times as long with two threads as with one. The count changes the
speed only: every sum is computed by one thread whatever their number, so the answers
are the same (``test_llm_llama_cpp``), and a busy machine gives an idle one's output.
"""

from __future__ import annotations

import os
import time

# Seconds the CPUs are watched before a call, and how long what was seen holds: calls
# come in bursts (a scoring pass per candidate search), one look serves the burst.
WATCH = 0.05
HOLDS = 1.0
_STAT = "/proc/stat"


def physical_cores() -> int:
    """Cores this process may use, counting each physical core once where we can tell."""
    usable = len(usable_cpus())
    siblings = _threads_per_core()
    return max(1, usable // siblings if usable >= siblings else usable)


def usable_cpus() -> set[int]:
    """The CPUs this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return set(range(os.cpu_count() or 1))


def _threads_per_core() -> int:
    try:
        with open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list") as handle:
            text = handle.read().strip()
    except OSError:
        return 1
    count = 0
    for part in text.split(","):
        low, _, high = part.partition("-")
        count += int(high) - int(low) + 1 if high else 1
    return max(1, count)


class CoreShare:
    """The threads for the next call: at most ``most``, and no more than the CPUs the
    other processes left idle while this process waited (``WATCH``). Where the system
    does not say (no ``/proc/stat``), always ``most``."""

    def __init__(self, most: int) -> None:
        self.most = max(1, most)
        self._cpus = usable_cpus()
        self._threads = self.most
        self._seen_at = -HOLDS

    def threads(self) -> int:
        now = time.monotonic()
        if now - self._seen_at < HOLDS:
            return self._threads
        before = _cpu_ticks(self._cpus)
        if before is None:
            return self.most
        time.sleep(WATCH)
        after = _cpu_ticks(self._cpus)
        self._seen_at = time.monotonic()
        if after is None:
            return self.most
        self._threads = threads_for(len(self._cpus), self.most, before, after)
        return self._threads


def threads_for(cpus: int, most: int, before: tuple[int, int], after: tuple[int, int]) -> int:
    """Threads for ``cpus`` CPUs whose (busy, all) ticks went from ``before`` to
    ``after`` while this process waited: the CPUs left idle, rounded, from 1 to ``most``."""
    busy, total = after[0] - before[0], after[1] - before[1]
    if total <= 0:
        return most
    idle_cpus = cpus * (1 - busy / total)
    return max(1, min(most, int(idle_cpus + 0.5)))


def _cpu_ticks(cpus: set[int]) -> tuple[int, int] | None:
    """Ticks the CPUs in ``cpus`` spent busy, and in all, since boot (``/proc/stat``)."""
    try:
        with open(_STAT) as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    busy = total = 0
    for line in lines:
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus):
            continue
        # user nice system idle iowait irq softirq steal (guest time is within user)
        values = [int(v) for v in rest.split()[:8]]
        if len(values) < 8:
            return None
        idle = values[3] + values[4]
        busy += sum(values) - idle
        total += sum(values)
    return (busy, total) if total else None
