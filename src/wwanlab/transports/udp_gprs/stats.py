"""Counters a UDP-GPRS endpoint keeps, for tests, traces and the comparison runs."""

from dataclasses import dataclass


@dataclass
class UdpGprsStats:
    datagrams_sent: int = 0  # every kind
    bytes_sent: int = 0  # UDP payload octets, every kind
    data_sent: int = 0  # DATA datagrams, first copies and repairs
    data_resent: int = 0  # repairs: on a NAK, a tail probe or a resume
    naks_sent: int = 0
    acks_sent: int = 0  # pure ACKs
    keepalives_sent: int = 0
    tail_probes: int = 0  # RTO expiries that resent the newest unacknowledged DATA
    messages_sent: int = 0
    messages_received: int = 0
    duplicates: int = 0  # DATA already held or delivered
    malformed: int = 0  # does not decode, or decodes to what a conforming peer never sends
    stray: int = 0  # well-formed, another session's
    discarded: int = 0  # messages given to a failed channel
    migrations: int = 0  # the peer's address changed (a re-attach gives a new address)
    stalls: int = 0
