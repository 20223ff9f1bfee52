"""The Snoop agent's snoop_data and snoop_ack rules, row by row, on hand-made packets."""

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.pep.snoop import INITIAL_RTO, MIN_RTO, SnoopAgent
from wwanlab.sim.ipv4 import PROTO_TCP, build_ipv4
from wwanlab.tcp.segment import ACK, FIN, RST, encode_segment, pseudo_header_sum

FH, MH = "192.0.2.1", "198.51.100.1"
ISS = 1000


def segment(src: str, dst: str, seq: int, ack: int, flags: int, payload: bytes = b"") -> bytes:
    sport, dport = (20, 5000) if src == FH else (5000, 20)
    pseudo = pseudo_header_sum(src, dst)
    tcp = encode_segment(sport, dport, seq, ack, flags, 65535, b"", payload, pseudo)
    return build_ipv4(src, dst, PROTO_TCP, tcp)


def data(n: int) -> bytes:
    """The n-th 100-octet data segment from the fixed host."""
    return segment(FH, MH, ISS + 100 * n, 1, ACK, bytes([n]) * 100)


def ack(upto: int) -> bytes:
    """An ACK from the mobile of the first ``upto`` segments."""
    return segment(MH, FH, 1, ISS + 100 * upto, ACK)


def agent_with(n: int, now: float = 0.0) -> SnoopAgent:
    agent = SnoopAgent({MH})
    for i in range(n):
        assert agent.receive_packet(data(i), now) is True
    return agent


def test_new_data_is_cached_and_forwarded_and_arms_the_initial_timer() -> None:
    agent = agent_with(3)
    assert agent.stats.data_segments == 3
    assert agent.get_timer() == INITIAL_RTO
    assert agent.packets_to_send(0.0) == []


def test_new_ack_is_forwarded_frees_the_cache_and_samples_the_rtt() -> None:
    agent = agent_with(3)
    assert agent.receive_packet(ack(2), 0.5) is True
    assert agent.stats.rtt_samples == 2
    # SRTT 0.5, RTTVAR 0.25 after the first sample, then RFC 6298 2.3 with R = 0.5
    assert agent.get_timer() == 0.5 + max(MIN_RTO, 0.5 + 4 * 0.1875)


def test_first_duplicate_resends_locally_and_expected_ones_are_dropped() -> None:
    agent = agent_with(5)
    assert agent.receive_packet(ack(1), 0.2) is True  # segment 1 is lost
    assert agent.receive_packet(ack(1), 0.3) is False  # 1st duplicate: resent here
    assert agent.packets_to_send(0.3) == [data(1)]
    assert agent.stats.data_driven == 1
    # three segments (2, 3, 4) were in flight behind it: their duplicates are expected
    assert [agent.receive_packet(ack(1), 0.31 + i / 100) for i in range(3)] == [False] * 2 + [True]
    assert agent.stats.dupacks_suppressed == 3


def test_older_ack_is_dropped_as_spurious() -> None:
    agent = agent_with(3)
    agent.receive_packet(ack(2), 0.2)
    assert agent.receive_packet(ack(1), 0.3) is False


def test_duplicate_for_a_segment_the_sender_resent_goes_to_the_sender() -> None:
    agent = agent_with(3)
    agent.receive_packet(ack(1), 0.2)
    assert agent.receive_packet(data(1), 0.25) is True  # the sender's own retransmission
    assert agent.receive_packet(ack(1), 0.3) is True
    assert agent.packets_to_send(0.3) == []


def test_timer_resends_the_oldest_and_doubles() -> None:
    agent = agent_with(2)
    agent.handle_timer(INITIAL_RTO)
    assert agent.packets_to_send(INITIAL_RTO) == [data(0)]
    assert agent.stats.timer_driven == 1
    assert agent.get_timer() == INITIAL_RTO + 2 * INITIAL_RTO


def test_data_already_acknowledged_is_forwarded_not_cached() -> None:
    agent = agent_with(2)
    agent.receive_packet(ack(2), 0.2)
    assert agent.receive_packet(data(0), 0.3) is True
    assert agent.get_timer() is None  # nothing cached


def test_rst_forgets_the_connection_and_fins_end_it() -> None:
    agent = agent_with(1)
    agent.receive_packet(segment(FH, MH, ISS + 100, 1, RST), 0.1)
    assert agent.get_timer() is None
    agent = agent_with(1)
    agent.receive_packet(segment(FH, MH, ISS + 100, 1, ACK | FIN), 0.1)
    agent.receive_packet(segment(MH, FH, 1, ISS + 101, ACK | FIN), 0.2)
    assert agent.get_timer() is None and not agent._flows


def test_other_traffic_passes_untouched() -> None:
    agent = SnoopAgent({MH})
    other = build_ipv4(FH, "203.0.113.9", PROTO_TCP, b"\x00" * 20)
    assert agent.receive_packet(other, 0.0) is True
    assert agent.receive_packet(b"\x45\x00", 0.0) is True
    # a TCP header whose data offset is 0: the mobile's TCP will judge it, not the agent
    assert agent.receive_packet(build_ipv4(FH, MH, PROTO_TCP, b"\x00" * 20), 0.0) is True


def test_an_ack_beyond_any_data_seen_changes_nothing() -> None:
    """A forged (or corrupted) ACK past what the host sent is passed on for the host's
    TCP to ignore; the agent keeps its cache and its last ACK, so the real ACKs after
    it are still new."""
    agent = agent_with(3)
    assert agent.receive_packet(ack(1000), 0.1) is True
    assert agent.receive_packet(ack(1), 0.2) is True  # a real ACK: still new
    assert agent.stats.rtt_samples == 1
    assert agent.receive_packet(ack(1), 0.3) is False  # and its duplicate resends locally
    assert agent.packets_to_send(0.3) == [data(1)]


def test_data_far_from_any_seen_is_passed_on_and_not_kept() -> None:
    """A segment more than WINDOW octets from the data seen (forged, or another
    connection's) is forwarded; it neither joins the cache nor widens what ACKs may
    acknowledge, so a forged ACK for it is passed on without changing the agent."""
    agent = agent_with(2)
    far = segment(FH, MH, ISS + (1 << 24), 1, ACK, b"x" * 100)
    assert agent.receive_packet(far, 0.1) is True
    assert agent.stats.data_segments == 2
    assert agent.receive_packet(segment(MH, FH, 1, ISS + (1 << 24) + 100, ACK), 0.2) is True
    assert agent.receive_packet(ack(1), 0.3) is True  # the real ACK is still new
    assert agent.stats.rtt_samples == 1


def _reordered(rule: str) -> SnoopAgent:
    """Segments 0, 2, 3 reach the agent, then 1 (the Internet swapped them); the mobile
    got them in that order and acknowledges 1 (new), then 1 again for 2 and 3."""
    agent = SnoopAgent({MH}, out_of_order=rule)
    for n in (0, 2, 3, 1):
        assert agent.receive_packet(data(n), 0.01 * n) is True
    assert agent.receive_packet(ack(1), 0.2) is True
    return agent


def test_out_of_order_as_new_data_resends_on_the_first_duplicate() -> None:
    # paper 002 IV.2: the agent resends on the first DUPACK, uselessly when segment 1
    # was only late
    agent = _reordered("new")
    assert agent.receive_packet(ack(1), 0.3) is False
    assert agent.packets_to_send(0.3) == [data(1)]
    assert agent.stats.data_driven == 1


def test_out_of_order_as_a_sender_retransmission_leaves_it_to_the_sender() -> None:
    # Balakrishnan et al. 1995, 3.1 case 3: marked sender-resent, its duplicates go on
    agent = _reordered("sender")
    assert [agent.receive_packet(ack(1), 0.3 + i / 100) for i in range(2)] == [True, True]
    assert agent.packets_to_send(0.4) == []
    assert (agent.stats.data_driven, agent.stats.data_segments) == (0, 4)


def test_unknown_out_of_order_rule_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown out-of-order rule 'drop'"):
        SnoopAgent({MH}, out_of_order="drop")
