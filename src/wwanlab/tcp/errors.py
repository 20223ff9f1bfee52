"""The TCP error root and its subclasses, each naming what went wrong."""

from wwanlab.core.errors import WwanlabError


class TcpError(WwanlabError):
    """Base of every error the TCP endpoint raises on purpose."""


class MalformedSegment(TcpError):
    """Bytes that are not a valid TCP segment (RFC 9293 3.1): the reason says which field."""


class InvalidTransition(TcpError):
    """An event the connection state table (RFC 9293 3.3.2) does not list for a state."""


class ConnectionNotOpen(TcpError):
    """A command on a connection id that is unknown, closed or already closing."""
