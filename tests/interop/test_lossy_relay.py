"""Our client against our gateway across a lossy, slow path: every transaction ends
byte-exact or in an explicit abort, never in silent corruption or a hang.

A ``LossyRelay`` on loopback applies ``wwanlab.link`` models to every datagram: 20 %
Bernoulli loss in each direction and 300 ms one-way delay. 40 sessions each run 5 Gets
of 1-60 KB at once (200 transactions, all concurrent). Both WTP ends use a 1.2 s retry
interval (the path's round trip is 0.6 s); with 20 % loss each way a retransmission
round fails with probability 1 - 0.8^2 = 0.36, and WTP gives up after 1 + MAX_RCR = 9
failed rounds (0.36^9 = 1e-4 per round), which is the explicit abort the caller sees.
"""

import asyncio
import random

import pytest

from wwanlab.aio.client import WapAborted, WapClient, WapError, WapTimeout
from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.aio.relay import LossyRelay
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.loss import BernoulliLoss
from wwanlab.peers.origin import OriginServer, pattern_bytes
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wtp.timers import WtpConfig

LOSS = 0.20
DELAY = 0.300  # s, one way
SESSIONS = 40
PER_SESSION = 5
WTP = WtpConfig(retry_interval=1.2)
HANG = 100.0  # s: a transaction still open after this is a hang


def link() -> tuple[Direction, Direction]:
    return (
        Direction([ConstantDelay(DELAY), BernoulliLoss(LOSS)]),
        Direction([ConstantDelay(DELAY), BernoulliLoss(LOSS)]),
    )


async def session(target, origin: OriginServer, sizes: list[int], seed: int) -> list[str]:
    client = WapClient(target, wtp_config=WTP, rng=random.Random(seed))
    try:
        await client.connect(timeout=HANG)
    except WapAborted:
        client.close()
        return ["connect-aborted"] * len(sizes)

    async def one(size: int) -> str:
        try:
            response = await client.get(origin.url(f"/bytes/{size}"), timeout=HANG)
        except WapAborted:
            return "aborted"
        except WapTimeout:
            return "hang"
        except WapError:
            return "error"
        ok = response.status == 200 and response.body == pattern_bytes(size)
        return "ok" if ok else "corrupt"

    try:
        return list(await asyncio.gather(*(one(s) for s in sizes)))
    finally:
        await client.disconnect()


@pytest.mark.slow
def test_two_hundred_transactions_across_twenty_percent_loss_each_way():
    rng = random.Random(2026)
    plan = [[rng.randint(1024, 60 * 1024) for _ in range(PER_SESSION)] for _ in range(SESSIONS)]

    async def main() -> tuple[list[str], dict[str, int], float]:
        policy = OriginPolicy.from_strings(["127.0.0.0/8"])
        async with OriginServer() as origin:
            config = GatewayConfig(port_cl=0, port_co=0, policy=policy, wtp=WTP, seed=1)
            gateway = await Gateway.start(config)
            relay = await LossyRelay.start(gateway.address("co"), link, random.Random(7))
            loop = asyncio.get_running_loop()
            started = loop.time()
            try:
                outcomes = await asyncio.gather(
                    *(session(relay.address, origin, sizes, i) for i, sizes in enumerate(plan))
                )
            finally:
                relay.close()
                await gateway.close()
            return [o for s in outcomes for o in s], dict(relay.stats), loop.time() - started

    outcomes, stats, seconds = asyncio.run(main())
    counts = {k: outcomes.count(k) for k in sorted(set(outcomes))}
    print(f"lossy relay: {counts} in {seconds:.1f} s; relay {stats}")
    assert len(outcomes) == SESSIONS * PER_SESSION == 200
    assert counts.get("corrupt", 0) == 0 and counts.get("hang", 0) == 0
    assert counts.get("error", 0) == 0
    assert set(counts) <= {"ok", "aborted", "connect-aborted"}
    # the path really was lossy in both directions, at about the configured rate
    for direction in ("up", "down"):
        dropped, sent = stats[f"{direction}_dropped"], stats[f"{direction}_sent"]
        total = dropped + sent
        share = dropped / total
        assert abs(share - LOSS) < 4 * (LOSS * (1 - LOSS) / total) ** 0.5  # 4 standard errors
