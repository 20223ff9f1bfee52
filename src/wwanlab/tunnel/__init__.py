"""``wwanlab tunnel``: paper 003's dual proxy as software people run on a slow link.

``seal`` authenticates and encrypts every datagram (docs/tunnel.md has the wire format
and the threat model); ``over_tcp`` carries the same datagrams over TCP where UDP is
blocked.
"""
