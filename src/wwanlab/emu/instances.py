"""Which emulator instances are alive, and what each one owns.

Every instance holds an exclusive ``flock`` on a slot file ``RUN_DIR/slot-N``. The
kernel drops the lock when the last process holding the file ends — the instance and
its guardian both hold it — so a free slot means its owner and guardian are both gone,
however they ended. A slot number names everything the instance makes:

* addresses: the /30 ``SUBNET + 4N`` (slots are taken in turn, see ``allocate``); the
  host side is ``.1``, the inner side ``.2``;
* devices: ``wwlNh`` (host side) and ``wwlNi`` (inside the namespace);
* nftables: the table ``ip wwanlab_N`` in the caller's namespace.

Nested emulators share ``RUN_DIR`` (the mount namespace is not unshared), so they
take different slots and different subnets. A slot whose /30 overlaps a route the
caller's namespace already has is skipped, so the emulator never shadows a network
the host uses (100.64.0.0/10 is also the carrier-grade NAT range, RFC 6598).

Forwarding: the inner program reaches other hosts through the caller's namespace,
which must forward IPv4. If it does not, the first instance turns it on and notes the
old value in ``RUN_DIR/forward-INODE``; the last instance in that namespace to end
puts it back. This is the one setting outside the instance's own objects it touches.
A note whose namespace has no process left is swept away, but only by a sweeper that
sees every process that could be in it: one in the note writer's PID namespace, or in
the machine's first. A sweeper in a PID namespace of its own (``bench pages``' worker)
sees only its own processes and would take a live namespace for a dead one.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wwanlab.emu.netns import EmulatorUnavailable, ip, namespace_id, tasks_in

RUN_DIR = Path("/run/wwanlab")  # tmpfs: slot files vanish at boot with the instances
SUBNET = ipaddress.IPv4Network("100.64.0.0/10")  # RFC 6598 shared address space
PREFIX = 30  # a point-to-point pair of usable addresses per instance
MAX_SLOTS = 1024
NEXT_SLOT = RUN_DIR / "next-slot"  # where the next allocation starts looking
TABLE_PREFIX = "wwanlab_"
IP_FORWARD = Path("/proc/sys/net/ipv4/ip_forward")
PROC_PID_INIT_INO = 0xEFFFFFFC  # the first PID namespace's inode (Linux, proc_ns.h)


@dataclass(frozen=True)
class Slot:
    """An instance's number, subnet and names, and the locked slot file's descriptor."""

    number: int
    fd: int

    @property
    def subnet(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network((int(SUBNET.network_address) + 4 * self.number, PREFIX))

    @property
    def host_address(self) -> str:
        return str(self.subnet.network_address + 1)

    @property
    def inner_address(self) -> str:
        return str(self.subnet.network_address + 2)

    @property
    def host_device(self) -> str:
        return f"wwl{self.number}h"

    @property
    def inner_device(self) -> str:
        return f"wwl{self.number}i"

    @property
    def table(self) -> str:
        return table_name(self.number)

    def record(self, inner: tuple[int, int]) -> None:
        """Note the inner namespace beside the caller's in the slot file, so that who
        holds a slot can be told apart from an earlier holder of the same number."""
        os.pwrite(self.fd, f"{caller_namespace()} {inner[0]}-{inner[1]}".encode(), 0)

    def release(self) -> None:
        os.close(self.fd)


def table_name(number: int) -> str:
    return f"{TABLE_PREFIX}{number}"


def caller_namespace() -> str:
    """The calling thread's network namespace as ``DEV-INODE``."""
    dev, ino = namespace_id("/proc/thread-self/ns/net")
    return f"{dev}-{ino}"


@contextlib.contextmanager
def registry_lock() -> Iterator[None]:
    """Serialise slot choice, sweeps and forwarding changes among all instances."""
    try:
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        fd = os.open(RUN_DIR / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise EmulatorUnavailable(f"cannot use {RUN_DIR}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _try_lock(number: int) -> int | None:
    """The slot file's descriptor, locked, or None if a live instance holds it."""
    fd = os.open(RUN_DIR / f"slot-{number}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _next_slot() -> int:
    try:
        text = NEXT_SLOT.read_text()
    except FileNotFoundError:
        return 0
    return int(text) % MAX_SLOTS if text.isdigit() else 0


def _used_networks() -> list[ipaddress.IPv4Network]:
    routes = json.loads(ip(["-j", "-4", "route", "show", "table", "all"]) or "[]")
    used = []
    for route in routes:
        dst = route.get("dst", "default")
        if dst != "default":
            used.append(ipaddress.IPv4Network(dst, strict=False))
    return used


def allocate() -> Slot:
    """Take the next free slot, in turn after the last one taken, whose subnet the
    caller's namespace does not route.

    In turn, not the lowest: a host socket of an instance that has ended may still
    send to its inner address (a FIN or a reset resent, TCP's TIME-WAIT), and that
    segment must not enter the link of the next instance. Call with ``registry_lock``
    held. The slot file records the caller's namespace.
    """
    used = _used_networks()
    start = _next_slot()
    for offset in range(MAX_SLOTS):
        number = (start + offset) % MAX_SLOTS
        subnet = Slot(number, -1).subnet
        if any(subnet.overlaps(net) for net in used if net.prefixlen > 0):
            continue
        fd = _try_lock(number)
        if fd is None:
            continue
        os.ftruncate(fd, 0)
        os.write(fd, caller_namespace().encode())
        NEXT_SLOT.write_text(str((number + 1) % MAX_SLOTS))
        return Slot(number, fd)
    raise EmulatorUnavailable(f"all {MAX_SLOTS} emulator slots are in use")


def live_slots() -> dict[int, str]:
    """Slot numbers held by live instances, with the namespace each was started in
    (``DEV-INODE``)."""
    live = {}
    for path in RUN_DIR.glob("slot-*"):
        number = int(path.name.removeprefix("slot-"))
        fd = _try_lock(number)
        if fd is not None:
            os.close(fd)
            continue
        live[number] = path.read_text().partition(" ")[0]
    return live


def holder(number: int) -> str | None:
    """The inner namespace (``DEV-INODE``) of the live instance in slot ``number``;
    None if the slot is free, ``""`` if its holder has not made its namespace yet."""
    if number not in live_slots():
        return None
    fields = (RUN_DIR / f"slot-{number}").read_text().split()
    return fields[1] if len(fields) > 1 else ""


def enable_forwarding() -> None:
    """Turn IPv4 forwarding on in the caller's namespace, noting the old value once.

    Call with ``registry_lock`` held.
    """
    if IP_FORWARD.read_text().strip() == "1":
        return
    note = RUN_DIR / f"forward-{caller_namespace()}"
    if not note.exists():
        note.write_text(f"0 {pid_namespace()}")
    try:
        IP_FORWARD.write_text("1")
    except OSError as exc:
        note.unlink()
        raise EmulatorUnavailable(f"cannot turn on IPv4 forwarding: {exc.strerror}") from None


def pid_namespace() -> str:
    """The calling process's PID namespace as ``pid:[INODE]``."""
    return os.readlink("/proc/self/ns/pid")


def sweep_notes() -> list[str]:
    """Remove forwarding notes of namespaces that no longer exist (a nested instance's,
    killed with the outer one), among those this process can judge; their names. Call
    with ``registry_lock`` held."""
    own = pid_namespace()
    sees_all = own == f"pid:[{PROC_PID_INIT_INO}]"
    removed = []
    for note in RUN_DIR.glob("forward-*"):
        writer = note.read_text().split()[1:]  # older notes name no writer
        if writer and writer[0] != own and not sees_all:
            continue
        dev, _, ino = note.name.removeprefix("forward-").partition("-")
        if not tasks_in((int(dev), int(ino))):
            note.unlink(missing_ok=True)
            removed.append(note.name)
    return removed


def restore_forwarding(own: int) -> None:
    """Put forwarding back if this namespace's last instance, ``own``, is ending.

    Call with ``registry_lock`` held, in the namespace the instance was started in.
    """
    ns = caller_namespace()
    note = RUN_DIR / f"forward-{ns}"
    if not note.exists():
        return
    others = [n for n, where in live_slots().items() if n != own and where == ns]
    if others:
        return
    IP_FORWARD.write_text(note.read_text().split()[0])
    note.unlink()
