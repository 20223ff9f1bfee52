"""The mobile host's own packets, recorded in the simulator, and the energy columns a
bulk reproduction adds beside goodput.

``RadioLog.tap`` goes on a simulated host's ``taps``, which see every packet the host
sends and every one that reaches it over a link: what the host's radio would put on
the air and take off it. It only reads, so a run with it gives the same results.
"""

import math
import socket
from collections.abc import Iterable

from wwanlab.energy.model import Airtime, account, get_model

Packet = tuple[float, str, int]
"""(time, "tx" or "rx", IP octets), as ``account`` takes it."""


class RadioLog:
    """What the host at ``address`` sent ("tx") and received ("rx"), in time order."""

    def __init__(self, address: str) -> None:
        self._address = socket.inet_aton(address)
        self.packets: list[Packet] = []

    def tap(self, now: float, packet: bytes) -> None:
        if packet[12:16] == self._address:
            self.packets.append((now, "tx", len(packet)))
        elif packet[16:20] == self._address:
            self.packets.append((now, "rx", len(packet)))


def energy_columns(
    packets: Iterable[Packet], airtime: Airtime, delivered: int | None, models: Iterable[str]
) -> dict[str, float]:
    """``joules_<model>`` and ``j_per_mb_<model>`` (per MB of ``delivered`` octets; NaN
    when None: a transfer that did not complete delivered no megabyte)."""
    trace = list(packets)
    out: dict[str, float] = {}
    for name in models:
        report = account(trace, get_model(name), airtime)
        out[f"joules_{name}"] = report.joules
        out[f"j_per_mb_{name}"] = report.per_megabyte(delivered) if delivered else math.nan
    return out
