"""Transport addresses: an IPv4 address in dotted form and a port, as sockets use them."""

Address = tuple[str, int]
