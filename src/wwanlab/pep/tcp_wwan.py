"""TCP-WWAN (paper 003 section 4.3.1, after its reference [13], Chakravorty et al.,
INFOCOM 2003): a transparent proxy in the operator's network that splits TCP as
``pep.split`` does, and runs toward the mobile a TCP that knows the link it feeds.

- "instead of using TCP slow start, it uses a pre-determined value of the
  bandwidth-delay product": ``fixed_window`` is the link's BDP rounded up to whole
  segments, from the first flight on, never grown;
- "performs aggressive recovery during packet losses" (losses the link layer caused,
  not congestion): SACK recovery (RFC 6675) with ssthresh = cwnd = that window, no
  halving;
- "regulate the flow of TCP segments towards the mobile client such that such queue
  build-up is avoided": ``pacing_bps`` is the link's IP rate, one segment per segment
  time, one pacer shared by every connection to a mobile ([13] treats them as one
  aggregate);
- "[link stalls] ... This prevents the TCP sender from spuriously timing out":
  ``probe_on_timeout``; when the timer expires nothing is resent, a probe asks the
  mobile what it holds, and the answer tells a stall (the data is acknowledged: go
  on) from a loss (resend the window at once).

Both sides of each connection are ``wwanlab.tcp`` endpoints; the proxy splits the
connections the mobile opens (a browser's) and those fixed hosts open to it. The wired
side runs the caller's configuration.
"""

import dataclasses
import math
import random

from wwanlab.link.presets import Preset
from wwanlab.pep.split import RELAY_BUFFER, Relay, SplitProxy
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.config import Variant
from wwanlab.tcp.connection import IPV4_HEADER, Pacer

TCP_HEADER = 20  # RFC 9293 3.1: header without options
ACK_PACKET = IPV4_HEADER + TCP_HEADER  # a pure ACK on the uplink


def link_of(preset: Preset) -> tuple[float, float]:
    """(IP bits/s of the downlink, round trip of a full-sized packet and its ACK with
    empty queues) for ``preset``: what an operator's proxy would be configured with."""
    down, up = preset.configured["down"], preset.configured["up"]

    def ip_bps(d: dict[str, float]) -> float:
        return d["rate_bps"] * 8 / d["bits_per_byte"]

    def serialize(size: int, d: dict[str, float]) -> float:
        return (size + d["overhead_bytes"]) * 8 / ip_bps(d)

    bps = ip_bps(down) * preset.mtu / (preset.mtu + down["overhead_bytes"])
    delays = (down["delay_ms"]["mean"] + up["delay_ms"]["mean"]) / 1000
    return bps, delays + serialize(preset.mtu, down) + serialize(ACK_PACKET, up)


def bdp_window(link_bps: float, rtt: float, mss: int) -> int:
    """The bandwidth-delay product in octets, rounded up to whole segments of ``mss``
    (rounding down would leave the link idle part of every round trip)."""
    return max(1, math.ceil(link_bps * rtt / 8 / mss)) * mss


def tcp_wwan_config(link_bps: float, rtt: float, base: TcpConfig | None = None) -> TcpConfig:
    """The proxy's TCP toward the mobile: ``base`` (default Linux's) with SACK, a fixed
    window of the BDP, pacing at ``link_bps`` and probes instead of timeouts."""
    base = base or TcpConfig.linux()
    return dataclasses.replace(
        base,
        variant=Variant.SACK,
        fixed_window=bdp_window(link_bps, rtt, base.mss),
        pacing_bps=link_bps,
        probe_on_timeout=True,
        frto=False,  # the probe answers what F-RTO would guess at
    )


class TcpWwanProxy(SplitProxy):
    """Split TCP whose wireless sides run ``tcp_wwan_config`` and share one pacer per
    mobile."""

    def __init__(
        self,
        mobiles: set[str] | frozenset[str],
        link_bps: float,
        rtt: float,
        rng: random.Random,
        *,
        wired: TcpConfig | None = None,
        wireless: TcpConfig | None = None,
        buffer: int = RELAY_BUFFER,
    ) -> None:
        wired = wired or TcpConfig.linux()
        config = tcp_wwan_config(link_bps, rtt, wireless or wired)
        super().__init__(mobiles, wired, config, rng, buffer=buffer, mobile_opens=True)
        self.link_bps = link_bps
        self._pacers: dict[str, Pacer] = {}

    def _opened(self, relay: Relay) -> None:
        conn = relay.wireless.connection(relay.wireless_id)
        conn.pacer = self._pacers.setdefault(relay.mobile[0], Pacer(self.link_bps))


def make_tcp_wwan(
    mobiles: set[str] | frozenset[str],
    preset: Preset,
    rng: random.Random,
    *,
    wired: TcpConfig | None = None,
    wireless: TcpConfig | None = None,
) -> TcpWwanProxy:
    """A TCP-WWAN proxy for mobiles behind ``preset``, its link known from the preset
    (``link_of``). For ``web.topology.build(transparent=...)``::

        lambda topo, rng: make_tcp_wwan({MOBILE_IP}, topo.preset, rng, wired=topo.tcp)
    """
    link_bps, rtt = link_of(preset)
    return TcpWwanProxy(mobiles, link_bps, rtt, rng, wired=wired, wireless=wireless)
