"""What an emulator instance leaves on the machine, and the skip for machines that
cannot emulate.

Other emulators (other test runs, a user's shell) may be running at the same time, so
the machine-wide lists of devices, tables and namespaces are filtered to one instance:
its devices ``wwlNh``, its table ``wwanlab_N``, routes in its /30, and its namespace
(any process or thread still in it).
"""

import ipaddress
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from wwanlab.emu import instances, nat
from wwanlab.emu.netns import tasks_in

can_emulate = pytest.mark.skipif(
    os.geteuid() != 0
    or not os.path.exists("/dev/net/tun")
    or subprocess.run(["nft", "--version"], capture_output=True, check=False).returncode != 0,
    reason="the emulator needs root, /dev/net/tun and nft",
)


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting for its new parent counts)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def slot_of(host_address: str) -> int:
    offset = int(ipaddress.IPv4Address(host_address)) - int(instances.SUBNET.network_address)
    return offset // 4


def descriptors_of(ns: tuple[int, int]) -> list[str]:
    """Open descriptors (/proc/PID/fd/N) that keep the namespace ``ns`` alive."""
    target = f"net:[{ns[1]}]"
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    found.append(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
    return found


def leftovers(host_address: str, ns: tuple[int, int] | None = None) -> list[str]:
    """Everything of the instance at ``host_address`` still present; empty when clean."""
    n = slot_of(host_address)
    left: list[str] = []
    if ns is not None:
        left += [f"namespace member {pid}/{tid}" for pid, tid in tasks_in(ns)]
        left += [f"namespace held by {fd}" for fd in descriptors_of(ns)]
        if instances.holder(n) not in (None, f"{ns[0]}-{ns[1]}"):
            # A later instance holds the slot, so this one's guardian has finished and
            # the devices, routes and table of that number are the newcomer's.
            return left
    subnet = ipaddress.IPv4Network((host_address, 30), strict=False)
    links = json.loads(subprocess.run(["ip", "-j", "link"], capture_output=True).stdout)
    left += [f"device {x['ifname']}" for x in links if x["ifname"] in (f"wwl{n}h", f"wwl{n}i")]
    routes = json.loads(
        subprocess.run(
            ["ip", "-j", "-4", "route", "show", "table", "all"], capture_output=True
        ).stdout
    )
    left += [
        f"route {r['dst']}"
        for r in routes
        if r["dst"] != "default" and ipaddress.IPv4Network(r["dst"], strict=False) == subnet
    ]
    if instances.table_name(n) in nat.tables():
        left.append(f"nft table {instances.table_name(n)}")
    return left


def stale_tables() -> list[str]:
    """Emulator tables whose slot nobody holds: what a failed start would leave."""
    live = instances.live_slots()
    prefix = instances.TABLE_PREFIX
    return [t for t in nat.tables() if int(t.removeprefix(prefix)) not in live]


def wait_clean(host_address: str, ns: tuple[int, int] | None = None, timeout: float = 10) -> None:
    """Wait until the instance has left nothing (a guardian works asynchronously)."""
    deadline = time.monotonic() + timeout
    while (left := leftovers(host_address, ns)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []
