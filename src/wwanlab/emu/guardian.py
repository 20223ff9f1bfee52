"""The guardian: removes an instance's leftovers once the instance is gone.

``EmulatedLink`` starts it before making anything, in a session of its own (a Ctrl-C
on the terminal does not reach it), with a pipe on its standard input and the slot's
locked file descriptor. It waits for end-of-file on the pipe, which comes when the
instance closes the pipe or dies in any way, even by ``kill -9``. Then it

1. kills every process still in the inner namespace (a daemon the command left
   behind, or the command itself if wwanlab died first), and their descendants (a
   nested emulator's command), so the namespace ends;
2. deletes the instance's nftables table;
3. restores IPv4 forwarding if this was the namespace's last instance;
4. exits, which frees the slot.

Devices need no help: a TUN device dies with the descriptor that made it.

Run as ``python -m wwanlab.emu.guardian SLOT NS_DEV NS_INODE`` (nothing else runs it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

from wwanlab.emu import instances, nat
from wwanlab.emu.netns import processes_in

KILL_ROUNDS = 50  # a process may fork while it is being killed; look again
KILL_PAUSE = 0.02  # seconds between rounds


def kill_all(ns: tuple[int, int]) -> None:
    """SIGKILL every process in ``ns`` and every descendant of one, wherever it is:
    a nested emulator's command lives in a namespace of its own, and its guardian
    is among those killed here, so this is the only chance to reach it."""
    for _ in range(KILL_ROUNDS):
        pids = with_descendants(processes_in(ns))
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(KILL_PAUSE)


def with_descendants(pids: list[int]) -> set[int]:
    """``pids`` and all their children, grandchildren, ... as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the process ended while we looked
        ppid = int(stat.rsplit(")", 1)[1].split()[1])  # after "(comm)": state, ppid
        children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = list(pids)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def clean(slot: int, ns: tuple[int, int]) -> None:
    kill_all(ns)
    with instances.registry_lock():
        nat.delete_table(instances.table_name(slot))
        instances.restore_forwarding(slot)


def main(argv: list[str]) -> int:
    slot, ns_dev, ns_ino = (int(a) for a in argv)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while sys.stdin.buffer.read(4096):
        pass
    clean(slot, (ns_dev, ns_ino))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
