"""The band over what the paper leaves open about its GPRS link: its base round trip.

Section 3 gives the first packet of a burst "600 ms to 3 seconds" across the link; the
``gprs-3plus1`` preset takes the lowest, 600 ms, as its propagation round trip and lets
the queue add the rest. Every idle gap the browser leaves costs a round trip, so the
claims about idle time and about the techniques that remove gaps depend on this
choice: the reproduction measures those cells again with the base round trip raised
(``RTTS``) and shows each claim's numbers over the band.
"""

import dataclasses

from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import WWAN_MIN_RTT, Plan, Preset, get_preset

RTTS = (WWAN_MIN_RTT, 1.0, 1.5)  # s: the preset's 600 ms, then two slower channels (assumed)
BAND_CONFIGS = ("default", "pipelining", "opt-6", "full-opt", "full-opt-dns")


def with_rtt(preset: Preset, rtt: float, base: float = WWAN_MIN_RTT) -> Preset:
    """``preset`` with ``(rtt - base) / 2`` of constant delay added in each direction."""
    if rtt == base:
        return preset
    extra = (rtt - base) / 2

    def plan(direction: str, loss: float | None) -> Plan:
        inner = preset.plan(direction, loss)
        return Plan([*inner.stages, ConstantDelay(extra)], inner.configured, inner.fifo)

    return dataclasses.replace(preset, name=f"{preset.name}@rtt{rtt:g}", plan=plan)


def link_preset(link: str) -> Preset:
    """``gprs-3plus1@rtt1.5`` -> the preset with its base round trip raised to 1.5 s."""
    name, _, rtt = link.partition("@rtt")
    preset = get_preset(name)
    return with_rtt(preset, float(rtt)) if rtt else preset
