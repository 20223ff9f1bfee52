"""The server's destination policy: where a tunnel client may make it connect.

A tunnel server on the public Internet is a way into its own network for anyone holding
a key: without a policy, a client could reach the server's loopback services, its LAN,
or the cloud metadata address. So addresses that are not globally routable are refused
(loopback, private, link-local, shared, multicast, reserved, unspecified: Python's
``ipaddress.is_global``) unless a network given with ``--allow`` contains them. The
policy is applied to the address the server will connect to, after it resolved the name
itself, so a name that resolves to a private address (DNS rebinding) is refused too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from wwanlab.core.errors import UsageError

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(texts: Sequence[str]) -> tuple[IpNetwork, ...]:
    """``--allow`` values as networks (``10.0.0.0/8``, ``127.0.0.1``); a ``UsageError``
    naming the first that is not one."""
    networks = []
    for text in texts:
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise UsageError(f"--allow {text!r} is not an IP network (e.g. 10.0.0.0/8)") from None
    return tuple(networks)


def permitted(address: str, allowed: Sequence[IpNetwork] = ()) -> bool:
    """Whether the server may connect to ``address`` (an IP literal)."""
    ip: IpAddress = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is loopback, not a global address
    if any(ip.version == net.version and ip in net for net in allowed):
        return True
    return ip.is_global and not ip.is_multicast
