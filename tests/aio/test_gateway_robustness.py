"""A flood of random and mutated datagrams must not disturb the gateway.

100 000 datagrams (random octets, mutated WTP PDUs, mutated connectionless WSP PDUs and
mutated but well-formed Connect/Get invokes) go to both ports from eight sockets; then an
ordinary client must still be served, nothing may have raised inside the event loop,
and the process may not have grown by more than ``RSS_BOUND``. The mutators are the
wire-format fuzzers' (fuzz/fuzz_wtp.py, fuzz/fuzz_wsp.py).
"""

import asyncio
import contextlib
import importlib
import random
import socket
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import uvloop

from wwanlab.aio.client import WapClient
from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.peers.origin import BODY_40K, OriginServer
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import AbortReason, AbortType

ROOT = Path(__file__).resolve().parents[2]
FLOOD = 100_000
SOCKETS = 8
BATCH = 64
RSS_BOUND = 64 * 1024 * 1024  # octets


def rss() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096


def fuzzers() -> tuple[ModuleType, ModuleType]:
    """fuzz/fuzz_wtp.py and fuzz/fuzz_wsp.py: scripts beside the tests, not a package."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("fuzz.fuzz_wtp"), importlib.import_module("fuzz.fuzz_wsp")


def datagrams(rng: random.Random) -> list[tuple[bytes, str]]:
    """(datagram, "co" or "cl") in a fixed random order."""
    fuzz_wtp, fuzz_wsp = fuzzers()
    mutate = fuzz_wtp.mutate
    wtp_pool = fuzz_wtp.seeds(rng)
    methods: list[wsp.Pdu] = [wsp.Connect(), wsp.Get(uri="http://127.0.0.1:1/x")]
    valid = [
        wtp.encode(wtp.Invoke(tid=t, tcl=2, user_data=wsp.encode(p), up_flag=True))
        for t, p in enumerate(methods * 10)
    ]
    cl_pool = [*fuzz_wsp.seeds(rng), wsp.encode_connectionless(1, wsp.Get(uri="http://a/"))]
    out = []
    for _ in range(FLOOD):
        kind = rng.random()
        if kind < 0.25:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
            out.append((data, rng.choice(("co", "cl"))))
        elif kind < 0.55:
            out.append((mutate(rng, wtp_pool), "co"))
        elif kind < 0.75:
            out.append((mutate(rng, valid), "co"))
        else:
            out.append((mutate(rng, cl_pool), "cl"))
    return out


@pytest.mark.slow
def test_flood_of_garbage_then_a_normal_client_is_served():
    flood = datagrams(random.Random(7))

    async def main() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        errors: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        policy = OriginPolicy.from_strings(["127.0.0.0/8"])
        async with OriginServer() as origin:
            gateway = await Gateway.start(GatewayConfig(port_cl=0, port_co=0, policy=policy))
            targets = {k: gateway.address(k) for k in ("co", "cl")}
            socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(SOCKETS)]
            for s in socks:
                s.bind(("127.0.0.1", 0))
                s.setblocking(False)
            before = rss()
            try:
                for start in range(0, FLOOD, BATCH):
                    for i, (data, kind) in enumerate(flood[start : start + BATCH]):
                        with contextlib.suppress(BlockingIOError):  # a full socket buffer
                            socks[i % SOCKETS].sendto(data, targets[kind])
                    await asyncio.sleep(0)
                await asyncio.sleep(0.2)
                grown = rss() - before
                # a malformed WTP PDU from a fresh initiator: Abort(PROTOERR), WTP 10.2
                probe = socks[0]
                while True:  # empty what the flood provoked
                    probe.setblocking(False)
                    try:
                        probe.recv(65536)
                    except BlockingIOError:
                        break
                probe.setblocking(True)
                probe.settimeout(2)
                probe.sendto(b"\x8a\x12\x34\x12\x09", targets["co"])
                reply = await loop.run_in_executor(None, probe.recv, 65536)
                async with WapClient(targets["co"]) as client:
                    response = await client.get(origin.url("/body40k"), timeout=10)
                return {
                    "errors": errors,
                    "grown": grown,
                    "abort": wtp.decode(reply),
                    "body": response.body,
                    "stats": gateway.snapshot(),
                }
            finally:
                for s in socks:
                    s.close()
                await gateway.close()

    result = uvloop.run(main())  # as `wwanlab gateway` runs
    assert result["errors"] == []
    assert result["body"] == BODY_40K
    [abort] = result["abort"]
    assert isinstance(abort, wtp.Abort)
    assert (abort.tid, abort.abort_type, abort.reason) == (
        0x1234,
        AbortType.PROVIDER,
        AbortReason.PROTOERR,
    )
    stats = result["stats"]
    assert stats["dropped"] > 10_000  # connectionless garbage, dropped and counted
    assert result["grown"] < RSS_BOUND
