"""Which origin addresses the gateway may fetch from.

A WAP gateway fetches any URL a phone names, so without a policy it is an open HTTP
proxy into the networks behind it. By default it refuses every address that is not
globally routable — loopback, RFC 1918 private, RFC 6598 shared, link-local,
unique-local, multicast, reserved, unspecified — unless an ``--allow-origin`` network
explicitly covers it (tests and labs allow 127.0.0.0/8 that way).
"""

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from wwanlab.core.errors import UsageError

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(text: str) -> IpNetwork:
    """``10.0.0.0/8`` or a single address; a bad value is the user's error."""
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError as exc:
        raise UsageError(f"--allow-origin {text!r} is not an IP network: {exc}") from None


@dataclass(frozen=True)
class OriginPolicy:
    allowed: tuple[IpNetwork, ...] = ()

    @classmethod
    def from_strings(cls, networks: Iterable[str]) -> "OriginPolicy":
        return cls(tuple(parse_network(n) for n in networks))

    def permits(self, address: str | IpAddress) -> bool:
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is loopback, not a way around the rule
        if any(ip.version == net.version and ip in net for net in self.allowed):
            return True
        # ``is_global`` excludes loopback, private, shared (100.64/10), link-local,
        # reserved and unspecified ranges; multicast is global but never an origin.
        return ip.is_global and not ip.is_multicast
