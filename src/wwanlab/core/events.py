"""The base of every protocol event.

Each protocol declares one subclass as its own base (``WtpEvent``, ``TcpEvent``...) and
small frozen dataclasses beneath it, so a driver can route events by type alone.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Event:
    """Something a protocol endpoint tells its user; drained with ``next_event()``."""
