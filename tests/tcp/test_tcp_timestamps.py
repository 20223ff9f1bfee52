"""RFC 7323 timestamps (TSopt) pinned to exact option bytes, echoes and segment sizes.

Segments are carried by hand: the client's SYN leaves at 0.0 s, the server answers it
at 0.05 s, the client sends its first data when the SYN,ACK arrives at 0.1 s. TSval is
a millisecond clock, so the values below are those times in milliseconds.
"""

import random

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR
from wwanlab.tcp import TcpConfig, TcpEndpoint
from wwanlab.tcp.segment import (
    Segment,
    decode_segment,
    encode_options,
    encode_segment,
    pseudo_header_sum,
)

MSS = 1000
TS = TcpConfig.linux(mss=MSS, timestamps=True, delayed_ack=False)


def _pair(client_config: TcpConfig, server_config: TcpConfig, size: int):
    client = TcpEndpoint(*CLIENT_ADDR, client_config, random.Random(1))
    server = TcpEndpoint(*SERVER_ADDR, server_config, random.Random(2))
    server.listen()
    conn = client.connect(SERVER_ADDR, 0.0)
    client.send(conn, random.Random(3).randbytes(size))
    (syn,) = [d for d, _ in client.datagrams_to_send(0.0)]
    server.receive_datagram(syn, CLIENT_ADDR, 0.05)
    (syn_ack,) = [d for d, _ in server.datagrams_to_send(0.05)]
    client.receive_datagram(syn_ack, SERVER_ADDR, 0.1)
    flight = [decode_segment(d) for d, _ in client.datagrams_to_send(0.1)]
    return server, decode_segment(syn), decode_segment(syn_ack), flight


def test_syn_options_are_laid_out_as_linux_writes_them():
    options = encode_options(1460, 7, True, timestamps=(0x01020304, 0))
    assert options.hex() == "020405b4" + "0402080a" + "01020304" + "00000000" + "01030307"
    assert encode_options(timestamps=(5, 6)).hex() == "0101080a" + "00000005" + "00000006"


def test_both_ends_offer_timestamps_and_every_segment_carries_them():
    _, syn, syn_ack, flight = _pair(TS, TS, 3 * MSS)
    assert (syn.tsval, syn.tsecr) == (0, 0)
    assert (syn_ack.tsval, syn_ack.tsecr) == (50, 0)  # echoes the SYN's TSval
    assert [(s.tsval, s.tsecr) for s in flight] == [(100, 50)] * 4
    # RFC 6691 2: the 12 option octets come out of each segment's data.
    assert [len(s.payload) for s in flight] == [988, 988, 988, 36]


def _restamped(seg: Segment, tsval: int) -> bytes:
    """``seg`` as the client would have sent it with another TSval."""
    options = encode_options(timestamps=(tsval, seg.tsecr))
    pseudo = pseudo_header_sum(CLIENT_ADDR[0], SERVER_ADDR[0])
    return encode_segment(
        seg.src_port, seg.dst_port, seg.seq, seg.ack, seg.flags, seg.window, options,
        seg.payload, pseudo,
    )  # fmt: skip


def test_only_a_segment_at_or_below_the_last_ack_sent_updates_the_echo():
    server, _, _, flight = _pair(TS, TS, 3 * MSS)
    # RFC 7323 4.3 (2): a segment past a hole is acknowledged with the old echo (the
    # SYN's TSval 0) and SACKed; the in-order one then sets it.
    server.receive_datagram(_restamped(flight[1], 999), CLIENT_ADDR, 0.2)
    (dup,) = [decode_segment(d) for d, _ in server.datagrams_to_send(0.2)]
    assert (dup.tsval, dup.tsecr) == (200, 0)
    assert len(dup.sack_blocks) == 1
    server.receive_datagram(_restamped(flight[0], 100), CLIENT_ADDR, 0.3)
    (ack,) = [decode_segment(d) for d, _ in server.datagrams_to_send(0.3)]
    assert (ack.tsval, ack.tsecr) == (300, 100)


def test_sack_blocks_are_at_most_three_beside_timestamps():
    config = TcpConfig.linux(mss=500, timestamps=True, delayed_ack=False)
    server, _, _, flight = _pair(config, config, 10 * 488)
    assert len(flight) == 10
    for seg, at in zip(flight[1::2], (0.2, 0.3, 0.4, 0.5, 0.6), strict=True):
        server.receive_datagram(_restamped(seg, 100), CLIENT_ADDR, at)
    last = decode_segment(server.datagrams_to_send(0.6)[-1][0])
    assert len(last.sack_blocks) == 3  # RFC 2018 3: 40 octets, 12 of them TSopt


def test_no_timestamps_unless_both_offer():
    _, syn, syn_ack, flight = _pair(TS, TcpConfig.linux(mss=MSS, delayed_ack=False), 2 * MSS)
    assert syn.tsval == 0
    assert syn_ack.tsval is None
    assert all(s.tsval is None for s in flight)
    assert [len(s.payload) for s in flight] == [MSS, MSS]
