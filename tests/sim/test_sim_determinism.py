"""Same scenario and seed: the same results and the same pcap bytes, in any process.

The scenario is self-contained (its own random link stages) so that this file can
also run as a script in a fresh interpreter: ``python test_sim_determinism.py SEED OUT``.
"""

import os
import random
import subprocess
import sys
from pathlib import Path

from wwanlab.core.contract import Echoer, Pinger
from wwanlab.link.base import Direction, Drop, Verdict
from wwanlab.sim import Network


class Jitter:
    def __init__(self, base: float, spread: float) -> None:
        self.base, self.spread = base, spread

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        return t + self.base + rng.uniform(0.0, self.spread)


class Coin:
    def __init__(self, p: float) -> None:
        self.p = p

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        return Drop("loss:coin") if rng.random() < self.p else t


def lossy() -> Direction:
    return Direction([Coin(0.2), Jitter(0.1, 0.2)], fifo=False)


def scenario(seed: int, out: Path) -> Network:
    """Ten pingers over lossy, jittery links; capture at a host and on a link."""
    net = Network(seed=seed)
    client = net.add_host("client", "10.0.0.1")
    server = net.add_host("server", "10.0.1.2")
    router = net.add_router("r")
    net.connect(client, router, lossy(), lossy())
    net.connect(router, server, lossy(), lossy())
    net.capture(client, out / "client.pcap")
    net.capture(net.links[1], out / "link.pcap", point="rx")
    server.bind_udp(7, Echoer())
    for i in range(10):
        pinger = Pinger(("10.0.1.2", 7), count=5)
        binding = client.bind_udp(40000 + i, pinger)
        pinger.start(0.0)
        binding.flush()
    net.run(until=120.0)
    net.close()
    return net


def run_in_fresh_process(seed: int, out: Path, hashseed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    subprocess.run(
        [sys.executable, __file__, str(seed), str(out)], env=env, check=True, timeout=60
    )


def test_same_seed_same_bytes_across_processes(tmp_path):
    runs = []
    for n, hashseed in enumerate(["1", "2"]):
        out = tmp_path / f"p{n}"
        out.mkdir()
        run_in_fresh_process(11, out, hashseed)
        runs.append(out)
    here = tmp_path / "here"
    here.mkdir()
    net = scenario(11, here)
    for name in ("client.pcap", "link.pcap"):
        data = (here / name).read_bytes()
        assert len(data) > 24 + 10 * 16  # the captures are not empty
        assert all((run / name).read_bytes() == data for run in runs)
    assert net.links[1].ab.stats.dropped_packets > 0  # the links did lose packets
    assert net.stats() == scenario(11, tmp_path / "p0").stats()  # and the same counters


def test_different_seed_different_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    scenario(11, a)
    scenario(12, b)
    assert (a / "client.pcap").read_bytes() != (b / "client.pcap").read_bytes()


if __name__ == "__main__":
    scenario(int(sys.argv[1]), Path(sys.argv[2]))
