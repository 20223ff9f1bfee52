"""Linux primitives the emulator needs: network namespaces, TUN devices, ``ip``.

A namespace is made by ``unshare(CLONE_NEWNET)`` in a dedicated thread (a network
namespace belongs to a thread, not a process), which then stays inside it and runs
whatever must happen there: creating the inner TUN device, opening sockets. The
namespace is held by that thread and by an open ``/proc/thread-self/ns/net``
descriptor, so it disappears by itself when wwanlab ends, however it ends; nothing is
mounted under ``/run/netns``. Other processes enter it with ``nsenter --net=PATH``.

Python 3.11 has neither ``os.unshare`` nor ``os.setns``: both come from libc here.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import errno
import fcntl
import os
import struct
import subprocess
from collections.abc import Callable, Iterable
from typing import TypeVar

from wwanlab.core.errors import UsageError

T = TypeVar("T")

CLONE_NEWNET = 0x40000000  # <linux/sched.h>
TUN_PATH = "/dev/net/tun"
TUNSETIFF = 0x400454CA  # <linux/if_tun.h>: _IOW('T', 202, int)
IFF_TUN = 0x0001  # <linux/if_tun.h>: layer-3 device, IP packets without a link header
IFF_NO_PI = 0x1000  # <linux/if_tun.h>: no 4-octet packet-information prefix
IFNAMSIZ = 16  # <linux/if.h>
IFREQ = struct.Struct(f"{IFNAMSIZ}sH22x")  # struct ifreq: name, flags, rest of the union

_libc = ctypes.CDLL(None, use_errno=True)


class EmulatorUnavailable(UsageError):
    """The machine does not let wwanlab emulate: not root, no TUN, no namespaces."""


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def unshare_net() -> None:
    """Move the calling thread into a new, empty network namespace."""
    _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")


def setns_net(fd: int) -> None:
    """Move the calling thread into the network namespace that ``fd`` refers to."""
    _check(_libc.setns(fd, CLONE_NEWNET), "setns(CLONE_NEWNET)")


def namespace_id(path: str) -> tuple[int, int]:
    """The (device, inode) pair that names a namespace, as ``stat`` gives it."""
    st = os.stat(path)
    return st.st_dev, st.st_ino


def check_can_emulate() -> None:
    """Raise ``EmulatorUnavailable`` with one line if this machine cannot emulate."""
    if os.geteuid() != 0:
        raise EmulatorUnavailable("the emulator needs root (network namespaces and TUN devices)")
    if not os.path.exists(TUN_PATH):
        raise EmulatorUnavailable(f"the emulator needs {TUN_PATH}, which this machine lacks")
    for tool in ("ip", "nft", "nsenter"):
        if not any(os.access(os.path.join(d, tool), os.X_OK) for d in _path()):
            raise EmulatorUnavailable(
                f"the emulator needs the '{tool}' command (iproute2, nftables, util-linux)"
            )


def _path() -> list[str]:
    return os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(os.pathsep)


def open_tun(name: str) -> int:
    """Create the layer-3 TUN device ``name`` in the calling thread's namespace.

    The device is not persistent: it vanishes, with its addresses and routes, when the
    returned descriptor is closed (also when the process dies). The descriptor is
    non-blocking and not inherited by child processes.
    """
    if len(name.encode()) >= IFNAMSIZ:
        raise ValueError(f"interface name too long: {name!r}")
    try:
        fd = os.open(TUN_PATH, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise EmulatorUnavailable(f"cannot open {TUN_PATH}: {exc.strerror}") from None
    try:
        fcntl.ioctl(fd, TUNSETIFF, IFREQ.pack(name.encode(), IFF_TUN | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def disable_ipv6(device: str) -> None:
    """Keep IPv6 off ``device`` (in the calling thread's namespace): no link-local
    address, no router or multicast-listener chatter on an IPv4 link model."""
    path = f"/proc/sys/net/ipv6/conf/{device}/disable_ipv6"
    if os.path.exists(path):  # a kernel without IPv6 has nothing to turn off
        with open(path, "w") as f:
            f.write("1")


def ip(args: Iterable[str] = (), *, netns: str | None = None, batch: str | None = None) -> str:
    """Run ``ip ARGS`` (inside ``netns`` if given) and return its output; ``batch`` is
    a list of ip commands, one a line, run by one ``ip -batch -``.

    A failure raises ``OSError`` with ip's own message: every caller runs it on devices
    and addresses it made itself, so a failure is a bug or a race worth seeing.
    """
    argv = ["ip", *args] if batch is None else ["ip", "-batch", "-"]
    if netns is not None:
        argv = ["nsenter", f"--net={netns}", "--", *argv]
    done = subprocess.run(argv, input=batch, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(errno.EIO, f"{' '.join(argv)}: {done.stderr.strip()}")
    return done.stdout


class Namespace:
    """A new network namespace, held open by one thread that lives inside it.

    ``call(fn)`` runs ``fn`` in that thread, so sockets and devices it creates belong
    to the namespace; ``path`` is how other processes enter it.
    """

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="wwanlab-netns")
        try:
            self._fd = self._pool.submit(_enter_new).result()
        except OSError as exc:
            self._pool.shutdown()
            if exc.errno in (errno.EPERM, errno.EACCES, errno.EINVAL, errno.ENOSYS):
                raise EmulatorUnavailable(
                    f"this machine does not allow network namespaces: {exc.strerror}"
                ) from None
            raise
        self.path = f"/proc/{os.getpid()}/fd/{self._fd}"
        self.id = namespace_id(self.path)

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run ``fn`` in the namespace's thread; its future."""
        return self._pool.submit(fn)

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in the namespace's thread and wait for its result."""
        return self._pool.submit(fn).result()

    def close(self) -> None:
        """Let the thread end and drop the descriptor; the namespace goes with the last
        process or device still in it."""
        self._pool.shutdown(wait=True)
        os.close(self._fd)


def _enter_new() -> int:
    unshare_net()
    return os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)


def processes_in(ns: tuple[int, int]) -> list[int]:
    """Process ids whose network namespace is ``ns`` (threads inside other processes,
    such as a ``Namespace``'s own, are not processes and are not listed)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if namespace_id(f"/proc/{entry}/ns/net") == ns:
                found.append(int(entry))
        except OSError:
            continue  # the process ended while we looked
    return found


def tasks_in(ns: tuple[int, int]) -> list[tuple[int, int]]:
    """(process id, thread id) of every thread whose network namespace is ``ns``: the
    namespace exists while this is not empty (or a descriptor holds it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                if namespace_id(f"/proc/{pid}/task/{tid}/ns/net") == ns:
                    found.append((int(pid), int(tid)))
            except OSError:
                continue
    return found
