"""UDP-GPRS (paper 003 section 4.3.2): a reliable, ordered message transport over UDP
between a client proxy and a server proxy on a GPRS link.

No handshake and no slow start; credit-based flow control sized to the link's
bandwidth-delay product; selective repeat driven by negative acknowledgements with a
tail probe for the last datagram of a burst; keep-alives that detect link stalls. Wire
format, state table and every timer: docs/udp-gprs.md.
"""

from wwanlab.transports.channel import ChannelFailed, MessageReceived
from wwanlab.transports.udp_gprs.config import UdpGprsConfig
from wwanlab.transports.udp_gprs.endpoint import State, UdpGprsChannel, UdpGprsError
from wwanlab.transports.udp_gprs.events import LinkResumed, LinkStalled, UdpGprsEvent
from wwanlab.transports.udp_gprs.packet import Kind, Packet, PacketError, decode
from wwanlab.transports.udp_gprs.stats import UdpGprsStats

__all__ = [
    "ChannelFailed",
    "Kind",
    "LinkResumed",
    "LinkStalled",
    "MessageReceived",
    "Packet",
    "PacketError",
    "State",
    "UdpGprsChannel",
    "UdpGprsConfig",
    "UdpGprsError",
    "UdpGprsEvent",
    "UdpGprsStats",
    "decode",
]
