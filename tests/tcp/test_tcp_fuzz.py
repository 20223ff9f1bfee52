"""Arbitrary well-formed segments thrown at live connections must never raise, and
corrupt bytes are only ever counted as bad segments."""

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.tcp.tcp_harness import make_lab

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.segment import encode_options, encode_segment, pseudo_header_sum

segments = st.lists(
    st.tuples(
        st.integers(-70_000, 70_000),  # seq offset from the server's rcv_nxt
        st.integers(-70_000, 70_000),  # ack offset from the server's snd_una
        st.integers(0, 0x3F),  # flags
        st.integers(0, 0xFFFF),  # window
        st.binary(max_size=2000),
        st.lists(st.tuples(st.integers(-5000, 70_000), st.integers(0, 5000)), max_size=4),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(["reno", "newreno", "sack"]),
    script=segments,
    close=st.booleans(),
    auto_consume=st.booleans(),
)
def test_random_segments_never_raise(variant: str, script, close: bool, auto_consume) -> None:
    config = TcpConfig.for_variant(
        variant, time_wait=1.0, auto_consume=auto_consume, receive_buffer=8000
    )
    lab = make_lab(config)
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, b"x" * 5000)
    lab.pair.run(until=0.12)  # the server is in SYN-RECEIVED or ESTABLISHED
    server = lab.server.connection(1)
    if close:
        lab.server.send(1, b"y" * 3000)
        lab.server.close(1)
    pseudo = pseudo_header_sum(CLIENT_ADDR[0], SERVER_ADDR[0])
    now = 0.12
    for seq_off, ack_off, flags, window, payload, blocks in script:
        now += 0.01
        sack = tuple(
            ((server.snd_una + a) % 2**32, (server.snd_una + a + n) % 2**32) for a, n in blocks
        )
        data = encode_segment(
            CLIENT_ADDR[1],
            SERVER_ADDR[1],
            (server.rcv_nxt + seq_off) % 2**32,
            (server.snd_una + ack_off) % 2**32,
            flags,
            window,
            encode_options(sack_blocks=sack),
            payload,
            pseudo,
        )
        lab.server.receive_datagram(data, CLIENT_ADDR, now)
        lab.server.handle_timer(now)
        lab.server.datagrams_to_send(now)
        while lab.server.next_event() is not None:
            pass
    lab.server.handle_timer(now + 1000)
    lab.server.datagrams_to_send(now + 1000)


@settings(max_examples=100, deadline=None)
@given(options=st.binary(max_size=40), flags=st.integers(0, 0x3F), payload=st.binary(max_size=50))
def test_any_options_are_rejected_or_answered(options: bytes, flags: int, payload: bytes) -> None:
    options += b"\x00" * (-len(options) % 4)
    pseudo = pseudo_header_sum(CLIENT_ADDR[0], SERVER_ADDR[0])
    data = encode_segment(
        CLIENT_ADDR[1], SERVER_ADDR[1], 1, 1, flags, 100, options, payload, pseudo
    )
    lab = make_lab(TcpConfig())
    lab.server.receive_datagram(data, CLIENT_ADDR, 0.0)
    out = lab.server.datagrams_to_send(0.0)
    # RFC 9293 3.10.7: a listener answers a SYN, a RST is ignored, anything else is reset.
    assert lab.server.bad_segments == 1 or bool(out) != bool(flags & 0x04)
