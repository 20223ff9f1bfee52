"""Recorded Kannel 1.4.5 traffic (tests/fixtures/kannel) as datagrams plus tshark's view.

The pcaps are raw IPv4 (LINKTYPE_RAW), read with the simulator's pcap and IPv4/UDP
parsers. UDP checksums are not verified: on the loopback device the kernel leaves them
to an offload that never runs, so captured values are partial sums.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from wwanlab.sim.ipv4 import parse_ipv4, parse_udp
from wwanlab.sim.pcap import LINKTYPE_RAW, read_pcap

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kannel"
MANIFEST: dict[str, Any] = json.loads((FIXTURES / "manifest.json").read_text())
FIXTURE_NAMES = sorted(MANIFEST["fixtures"])


@dataclass(frozen=True)
class Datagram:
    frame: int  # 1-based, as tshark numbers them
    time: float
    src: str  # "address:port"
    dst: str
    payload: bytes
    expected: dict[str, Any]  # the manifest's entry for this frame

    @property
    def connectionless(self) -> bool:
        return self.src.endswith(":9200") or self.dst.endswith(":9200")


def load_datagrams(name: str) -> list[Datagram]:
    entry = MANIFEST["fixtures"][name]
    link, records = read_pcap((FIXTURES / entry["pcap"]).read_bytes())
    assert link == LINKTYPE_RAW
    datagrams = []
    for number, ((t, packet), expected) in enumerate(
        zip(records, entry["datagrams"], strict=True), start=1
    ):
        ip, segment = parse_ipv4(packet)
        udp, payload = parse_udp(ip.src, ip.dst, segment, verify=False)
        datagrams.append(
            Datagram(
                frame=number,
                time=t,
                src=f"{ip.src}:{udp.src_port}",
                dst=f"{ip.dst}:{udp.dst_port}",
                payload=payload,
                expected=expected,
            )
        )
    return datagrams


@pytest.fixture
def kannel_manifest() -> dict[str, Any]:
    return MANIFEST


@pytest.fixture
def load_kannel_datagrams() -> Callable[[str], list[Datagram]]:
    return load_datagrams


@pytest.fixture(params=FIXTURE_NAMES)
def kannel_fixture(request: pytest.FixtureRequest) -> tuple[str, list[Datagram]]:
    """(name, datagrams) of each recorded Kannel scenario in turn."""
    name: str = request.param
    return name, load_datagrams(name)
