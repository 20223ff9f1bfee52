"""F-RTO (RFC 5682) pinned to exact segments, timers and cwnd/ssthresh.

Every segment is carried by hand, so a test decides when (and whether) each one
arrives: the first flight is held back past the RTO as a deep queue would hold it
(spurious timeout), or lost (genuine timeout). Setup: MSS 1000, no delayed ACKs, IW 4
segments (RFC 5681 3.1), minimum RTO 1 s; the handshake measures an RTT of 0.1 s, so
the RTO is max(0.1 + 4 * 0.05, 1.0) = 1.0 s (RFC 6298 2.2, 2.4), and the flight leaves
at 0.1 s, its timer due at 1.1 s.
"""

import random

import pytest

from wwanlab.core.address import Address
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR
from wwanlab.tcp import TcpConfig, TcpEndpoint
from wwanlab.tcp.config import INITIAL_SSTHRESH as INF
from wwanlab.tcp.segment import decode_segment
from wwanlab.tcp.stats import CwndSample

SIZE = 12_000


class Script:
    """A client sending ``SIZE`` octets and a server, joined by a test's own hands."""

    def __init__(self, config: TcpConfig) -> None:
        self.trace: list[CwndSample] = []
        self.client = TcpEndpoint(
            *CLIENT_ADDR, config, random.Random(1), recorder=self.trace.append
        )
        self.server = TcpEndpoint(*SERVER_ADDR, config, random.Random(2))
        self.server.listen()
        self.conn = self.client.connect(SERVER_ADDR, 0.0)
        self.data = random.Random(3).randbytes(SIZE)
        self.client.send(self.conn, self.data)
        self.iss = self.client.connection(self.conn).iss
        syn_ack = self.to_server(self.client.datagrams_to_send(0.0), 0.05)
        self.to_client(syn_ack, 0.1)

    def to_server(self, segments: list[tuple[bytes, Address]], at: float) -> list[bytes]:
        for data, _addr in segments:
            self.server.receive_datagram(data, CLIENT_ADDR, at)
        return [d for d, _ in self.server.datagrams_to_send(at)]

    def to_client(self, segments: list[bytes], at: float) -> None:
        for data in segments:
            self.client.receive_datagram(data, SERVER_ADDR, at)

    def sent(self, at: float) -> list[tuple[bytes, Address]]:
        return self.client.datagrams_to_send(at)

    def offsets(self, segments: list[tuple[bytes, Address]]) -> list[int]:
        """The stream offsets of the client's data segments (0 = first data octet)."""
        out = []
        for data, _ in segments:
            seg = decode_segment(data)
            if seg.payload:
                out.append((seg.seq - self.iss - 1) % (1 << 32))
        return out

    def acks(self, server_out: list[bytes]) -> list[int]:
        return [(decode_segment(d).ack - self.iss - 1) % (1 << 32) for d in server_out]

    def window(self) -> tuple[int, int]:
        c = self.client.connection(self.conn)
        return c.cwnd, c.ssthresh

    def timeout(self) -> list[tuple[bytes, Address]]:
        """Fire the client's RTO at exactly the time it is due."""
        due = self.client.get_timer()
        assert due is not None
        self.client.handle_timer(due)
        return self.sent(due)


def frto(variant: str, **overrides: object) -> TcpConfig:
    return TcpConfig.for_variant(variant, mss=1000, delayed_ack=False, frto=True, **overrides)


def first_flight(s: Script) -> tuple[list[tuple[bytes, Address]], list[tuple[bytes, Address]]]:
    """The first flight, held back, and the timeout's retransmission."""
    flight = s.sent(0.1)
    assert s.offsets(flight) == [0, 1000, 2000, 3000]
    assert s.client.get_timer() == pytest.approx(1.1)
    rxt = s.timeout()
    # RFC 5682 step 1: the first unacknowledged segment alone; RFC 5681 3.1: cwnd 1
    # SMSS, ssthresh = FlightSize / 2 = 2000
    assert s.offsets(rxt) == [0]
    assert s.window() == (1000, 2000)
    assert s.client.get_timer() == pytest.approx(1.1 + 2.0)  # RFC 6298 5.5: backed off
    return flight, rxt


@pytest.mark.parametrize("variant", ["sack", "newreno", "reno"])
def test_spurious_timeout_sends_new_data_then_undoes(variant: str) -> None:
    s = Script(frto(variant))
    flight, _ = first_flight(s)
    # The held flight arrives at 1.5: one ACK per segment.
    acks = s.to_server(flight, 1.5)
    assert s.acks(acks) == [1000, 2000, 3000, 4000]
    s.to_client(acks[:1], 1.55)
    # Step 2b: the ACK of 1000 advances SND.UNA below "recover" (4000): two new
    # segments, not a resend of 1000; slow start took cwnd to 2000.
    out = s.sent(1.55)
    assert s.offsets(out) == [4000, 5000]
    assert s.window() == (2000, 2000)
    s.to_client(acks[1:2], 1.55)
    # Step 3b: 2000 was never retransmitted, the timeout was spurious. Linux's undo:
    # cwnd = max(2000, 4000), ssthresh back to its old value, then slow start adds 1000.
    conn = s.client.connection(s.conn)
    assert conn.spurious_timeouts == 1
    assert s.window() == (5000, INF)
    assert [(x.cwnd, x.ssthresh, x.reason) for x in s.trace[-2:]] == [
        (4000, INF, "spurious_timeout"),
        (5000, INF, "ack"),
    ]
    # Sending goes on with new data (6000), never back to 1000-3000.
    assert s.offsets(s.sent(1.55)) == [6000]
    s.to_client(acks[2:], 1.55)
    assert s.offsets(s.sent(1.55)) == [7000, 8000, 9000, 10000]
    assert conn.stats.retransmissions == 1
    assert conn.stats.timeouts == 1


def test_genuine_timeout_with_sack_goes_back_with_three_segments() -> None:
    s = Script(frto("sack"))
    _, rxt = first_flight(s)  # the whole first flight is lost
    ack = s.to_server(rxt, 1.15)  # the retransmission of 0 arrives
    s.to_client(ack, 1.2)
    new = s.sent(1.2)
    assert s.offsets(new) == [4000, 5000]
    assert s.window() == (2000, 2000)
    dupacks = s.to_server(new, 1.25)
    s.to_client(dupacks[:1], 1.3)
    # Step 3a: a duplicate ACK SACKing only the new data: the loss was real. Go back
    # to SND.UNA with cwnd 3 SMSS (RFC 5682 3 step 3a), skipping SACKed 4000-5000.
    assert s.window() == (3000, 2000)
    assert s.offsets(s.sent(1.3)) == [1000, 2000, 3000]
    conn = s.client.connection(s.conn)
    assert conn.spurious_timeouts == 0
    assert s.trace[-1].reason == "timeout"


def test_genuine_timeout_without_sack_goes_back_with_three_segments() -> None:
    s = Script(frto("newreno"))
    _, rxt = first_flight(s)
    ack = s.to_server(rxt, 1.15)
    s.to_client(ack, 1.2)
    new = s.sent(1.2)
    assert s.offsets(new) == [4000, 5000]
    dupacks = s.to_server(new, 1.25)
    assert s.acks(dupacks) == [1000, 1000]
    s.to_client(dupacks[:1], 1.3)
    # RFC 5682 2.1 step 3a: a duplicate ACK, cwnd 3 SMSS, go back N from 1000.
    assert s.window() == (3000, 2000)
    assert s.offsets(s.sent(1.3)) == [1000, 2000, 3000]
    assert s.client.connection(s.conn).spurious_timeouts == 0


@pytest.mark.parametrize(
    ("variant", "after_dupack", "after_ack"),
    [
        ("newreno", [1000], [3000, 4000]),  # 2.1 step 2a: conventional, back to 3000
        ("sack", [], [4000, 5000]),  # 3 step 2: F-RTO waits on, then step 2b
    ],
)
def test_duplicate_ack_in_step_2_ends_basic_frto_only(
    variant: str, after_dupack: list[int], after_ack: list[int]
) -> None:
    s = Script(frto(variant))
    flight, rxt = first_flight(s)
    # 0 and 3000 are lost, 1000 and 2000 arrive: duplicate ACKs (SACKing 1000-3000).
    dupacks = s.to_server(flight[1:3], 1.5)
    s.to_client(dupacks[:1], 1.55)
    # Without SACK, RFC 3042's limited transmit lets one more segment go: go back N
    # has left SND.NXT at 1000.
    assert s.offsets(s.sent(1.55)) == after_dupack
    ack = s.to_server(rxt, 1.6)  # the retransmission of 0 fills the hole up to 3000
    assert s.acks(ack) == [3000]
    s.to_client(ack, 1.65)
    assert s.offsets(s.sent(1.65)) == after_ack


def test_whole_flight_acknowledged_is_conventional_recovery() -> None:
    """Step 2a: the first ACK covers "recover": nothing to tell, slow start goes on."""
    s = Script(frto("sack"))
    flight, _ = first_flight(s)
    acks = s.to_server(flight, 1.5)
    s.to_client(acks[-1:], 1.55)  # only the cumulative ACK of 4000 gets through
    assert s.window() == (2000, 2000)
    assert s.offsets(s.sent(1.55)) == [4000, 5000]  # cwnd 2000, new data by slow start
    assert s.client.connection(s.conn).spurious_timeouts == 0


def test_recurring_timeout_runs_frto_again_as_linux() -> None:
    s = Script(frto("sack"))
    flight, _ = first_flight(s)
    assert s.offsets(s.timeout()) == [0]  # 3.1 s: the same SND.UNA, sent again
    assert s.window() == (1000, 2000)  # ssthresh held on the repeated timeout
    acks = s.to_server(flight, 3.5)
    s.to_client(acks[:1], 3.55)
    assert s.offsets(s.sent(3.55)) == [4000, 5000]
    s.to_client(acks[1:2], 3.55)
    assert s.client.connection(s.conn).spurious_timeouts == 1
    assert s.window() == (5000, INF)


def test_without_frto_the_same_spurious_timeout_goes_back_n() -> None:
    s = Script(TcpConfig.for_variant("sack", mss=1000, delayed_ack=False))
    flight, _ = first_flight(s)
    acks = s.to_server(flight, 1.5)
    s.to_client(acks[:1], 1.55)
    assert s.offsets(s.sent(1.55)) == [1000, 2000]  # resends what is already there
    assert s.window() == (2000, 2000)


def test_linux_config_turns_frto_on_and_rfc_configs_leave_it_off() -> None:
    assert TcpConfig.linux().frto
    assert not TcpConfig().frto
    assert not any(TcpConfig.for_variant(v).frto for v in ("reno", "newreno", "sack"))
