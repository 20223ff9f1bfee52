"""A real program behind ``EmulatedLink("gprs-one-user")`` sees the GPRS radio's TBF
set-up: its first echo after an idle gap takes longer than the echoes of a steady
stream, and both stay within what the preset's parameters allow."""

import asyncio
import json
import socket
import statistics
import sys
import threading

from tests.emu.leftovers import can_emulate

from wwanlab.emu.link import EmulatedLink
from wwanlab.experiments.probe import LinkUnderTest, idle_gap
from wwanlab.link.presets import get_preset

pytestmark = can_emulate

PRESET = "gprs-one-user"
IDLE_ECHOES = 6
STEADY_ECHOES = 20
STEADY_INTERVAL = 0.25  # s, below T3192 (0.5 s): the downlink TBF stays up
PAYLOAD = 36  # octets: 64 octets of IP with the UDP and IP headers

# The inner program: echoes after idle gaps, then a steady stream; prints the RTTs.
CLIENT = """
import json, os, select, socket, sys, time
host, port, gap = os.environ["WWANLAB_HOST"], int(sys.argv[1]), float(sys.argv[2])
idle, steady, interval = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = {}
rtts = {}
def request(n):
    sent[n] = time.monotonic()
    s.sendto(n.to_bytes(4, "big") + bytes(32), (host, port))
def collect(until):
    while True:
        left = until - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            return
        data = s.recv(100)
        n = int.from_bytes(data[:4], "big")
        rtts.setdefault(n, time.monotonic() - sent[n])
for i in range(idle):
    collect(time.monotonic() + gap)  # silence: every TBF is released
    request(i)
collect(time.monotonic() + gap)
start = time.monotonic()
for j in range(steady):
    request(idle + j)
    collect(start + (j + 1) * interval)
collect(time.monotonic() + gap)
print(json.dumps({"first": [rtts.get(i) for i in range(idle)],
                  "steady": [rtts.get(idle + j) for j in range(steady)]}))
"""


def echo_server(sock: socket.socket, stop: threading.Event) -> None:
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            data, peer = sock.recvfrom(100)
        except TimeoutError:
            continue
        sock.sendto(data, peer)


def test_first_echo_after_idle_pays_the_tbf_set_up() -> None:
    gap = idle_gap(LinkUnderTest(get_preset(PRESET)))

    async def main() -> dict[str, list[float | None]]:
        async with EmulatedLink(PRESET, seed=7) as link:
            server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            server.bind((link.host_address, 0))
            stop = threading.Event()
            thread = threading.Thread(target=echo_server, args=(server, stop))
            thread.start()
            try:
                args = [str(server.getsockname()[1]), str(gap)]
                args += [str(IDLE_ECHOES), str(STEADY_ECHOES), str(STEADY_INTERVAL)]
                proc = await link.spawn(
                    [sys.executable, "-c", CLIENT, *args], stdout=asyncio.subprocess.PIPE
                )
                out, _ = await link.guard(proc.communicate())
            finally:
                stop.set()
                thread.join()
                server.close()
            assert proc.returncode == 0
            result: dict[str, list[float | None]] = json.loads(out)
            return result

    rtts = asyncio.run(main())
    first = [r for r in rtts["first"] if r is not None]
    steady = [r for r in rtts["steady"] if r is not None]
    # PER 0.5% and Internet loss 1%, each way: a few echoes may be lost.
    assert len(first) >= IDLE_ECHOES - 2 and len(steady) >= STEADY_ECHOES - 4
    # Bounds from the preset: frames and core lines both ways 41 ms; Internet N(100, 20)
    # ms each way, taken up to 5 sd (200 ms); radio latency up to 40 ms each way; uplink
    # access up to 0.4 s; downlink TBF set-up up to 0.471 s (only after idle); 50 ms of
    # emulator scheduling; a steady request may wait up to 0.15 s behind the access of
    # the one before it (0.4 s access, 0.25 s apart).
    fixed = 0.041
    assert all(fixed < r < fixed + 0.4 + 0.08 + 0.4 + 0.471 + 0.05 for r in first), first
    assert all(fixed < r < fixed + 0.4 + 0.08 + 0.4 + 0.15 + 0.05 for r in steady), steady
    # The downlink set-up's mean is 235 ms: the medians differ by more than 100 ms.
    assert statistics.median(first) > statistics.median(steady) + 0.1, (first, steady)
