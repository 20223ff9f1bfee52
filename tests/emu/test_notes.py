"""Forwarding notes are swept only by a process that can judge them: one in a PID
namespace of its own (``bench pages``' worker) sees none of the host's processes and
must leave the notes of host namespaces alone, or forwarding stays on after the host's
last instance."""

import subprocess
import sys
import time

from tests.emu.leftovers import can_emulate

from wwanlab.emu import instances
from wwanlab.emu.netns import namespace_id

SWEEP = "from wwanlab.emu import instances\nwith instances.registry_lock():\n" + (
    "    print(' '.join(instances.sweep_notes()))"
)


def sweep_in_own_pid_namespace() -> list[str]:
    argv = ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", SWEEP]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()


def sweep_here() -> list[str]:
    with instances.registry_lock():
        return instances.sweep_notes()


@can_emulate
def test_a_note_is_swept_only_by_who_sees_its_namespace() -> None:
    ours = namespace_id("/proc/self/ns/net")
    holder = subprocess.Popen(["unshare", "--net", "sleep", "60"])
    note = None
    try:
        deadline = time.monotonic() + 10
        while namespace_id(f"/proc/{holder.pid}/ns/net") == ours:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        dev, ino = namespace_id(f"/proc/{holder.pid}/ns/net")
        note = instances.RUN_DIR / f"forward-{dev}-{ino}"
        with instances.registry_lock():
            note.write_text(f"0 {instances.pid_namespace()}")
        assert note.name not in sweep_in_own_pid_namespace() and note.exists()
        assert note.name not in sweep_here() and note.exists()  # its sleeper lives
        holder.kill()
        holder.wait()
        assert note.name not in sweep_in_own_pid_namespace() and note.exists()
        assert note.name in sweep_here() and not note.exists()  # its namespace is gone
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if note is not None:
            note.unlink(missing_ok=True)
