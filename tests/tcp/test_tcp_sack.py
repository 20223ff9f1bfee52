"""SACK blocks as the receiver writes them (RFC 2018 4) and the sender's use of them."""

from tests.tcp.tcp_harness import Lab, bulk, drop_client_data, make_lab

from wwanlab.tcp import InitialWindow, TcpConfig
from wwanlab.tcp.ranges import ReorderQueue, Scoreboard

# SACK with a 10-segment initial window (RFC 6928) and an ACK for every segment, so that
# one round trip carries all the data and each loss shows in the very next ACK.
SACK_IW10 = TcpConfig.for_variant(
    "sack", mss=1000, delayed_ack=False, initial_window=InitialWindow.RFC6928
)


def acks(lab: Lab) -> list[tuple[float, int, list[tuple[int, int]]]]:
    """Server ACKs as (time, ack offset, SACK blocks as stream offsets)."""
    base = lab.client.connection(1).iss + 1
    out = []
    for t, seg in lab.segments("server")[1:]:
        blocks = [((a - base) % 2**32, (b - base) % 2**32) for a, b in seg.sack_blocks]
        out.append((round(t, 6), (seg.ack - base) % 2**32, blocks))
    return out


def test_sack_blocks_report_the_newest_range_first() -> None:
    hook, _ = drop_client_data([1000, 3000, 5000])
    lab = make_lab(SACK_IW10, drop=hook)
    _, data = bulk(lab, 10000)
    lab.pair.run(until=5)
    assert lab.received("server") == data
    assert acks(lab) == [
        (0.15, 1000, []),
        (0.15, 1000, [(2000, 3000)]),
        (0.15, 1000, [(4000, 5000), (2000, 3000)]),
        (0.15, 1000, [(6000, 7000), (4000, 5000), (2000, 3000)]),
        (0.15, 1000, [(6000, 8000), (4000, 5000), (2000, 3000)]),
        (0.15, 1000, [(6000, 9000), (4000, 5000), (2000, 3000)]),
        (0.15, 1000, [(6000, 10000), (4000, 5000), (2000, 3000)]),
        # The three retransmissions (sent at 0.2, one RTT after the losses) fill the holes.
        (0.25, 3000, [(6000, 10000), (4000, 5000)]),
        (0.25, 5000, [(6000, 10000)]),
        (0.25, 10000, []),
    ]


def test_at_most_four_blocks_without_timestamps() -> None:
    hook, _ = drop_client_data([0, 2000, 4000, 6000, 8000])
    lab = make_lab(SACK_IW10, drop=hook)
    bulk(lab, 10000)
    lab.pair.run(until=0.16)
    last = acks(lab)[-1]
    assert last == (0.15, 0, [(9000, 10000), (7000, 8000), (5000, 6000), (3000, 4000)])


def test_reno_peer_gets_no_sack_blocks() -> None:
    config = TcpConfig.for_variant("reno", mss=1000, delayed_ack=False)
    hook, _ = drop_client_data([1000])
    lab = make_lab(config, server_config=TcpConfig.for_variant("sack"), drop=hook)
    bulk(lab, 4000)
    lab.pair.run(until=5)
    assert all(blocks == [] for _, _, blocks in acks(lab))


def test_tail_loss_is_repaired_by_the_rescue_retransmission() -> None:
    # The last two of eight segments are lost with the first: SACKs of 1000-5999 start
    # recovery; no new data remains, so RFC 6675 rule (4) resends the highest
    # outstanding segment, 7000, instead of waiting for the RTO (Reno would time out).
    hook, _ = drop_client_data([0, 6000, 7000])
    lab = make_lab(SACK_IW10, drop=hook)
    conn, data = bulk(lab, 8000)
    lab.pair.run(until=10)
    assert lab.received("server") == data
    s = lab.client.stats(conn)
    resent = [
        (round(t, 6), lab.client_offset(seg))
        for t, seg in lab.segments("client")
        if seg.payload and t > 0.15
    ]
    # Once 7000 is SACKed, 6000 is a hole below the highest SACK: rule (3) resends it
    # on the partial ACK of 0-5999, and no RTO is needed.
    assert resent == [(0.2, 0), (0.2, 7000), (0.3, 6000)]
    assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (1, 0, 3)


def test_scoreboard_merges_and_counts_new_octets() -> None:
    board = Scoreboard()
    assert board.add(10, 20) == 10
    assert board.add(30, 40) == 10
    assert board.add(15, 35) == 10  # only 20-30 is new
    assert board.blocks == [[10, 40]]
    board.advance(25)
    assert board.blocks == [[25, 40]]
    assert board.sacked_end(30) == 40 and board.sacked_end(50) == 50
    board.advance(40)
    assert board.blocks == []


def test_reorder_queue_trims_overlaps_and_releases_in_order() -> None:
    q = ReorderQueue()
    q.insert(10, b"klmno")  # 10-15
    q.insert(12, b"MNOPQ")  # 12-17: only 15-17 is new
    assert q.ranges() == [(10, 17)]
    q.insert(20, b"uv")
    assert q.sack_blocks(4) == [(20, 22), (10, 17)]
    assert q.pop_in_order(5) == b""
    assert q.pop_in_order(10) == b"klmnoPQ"
    assert q.ranges() == [(20, 22)]
