"""The sender's packet groups: which Acks end a group, or the message."""

from wwanlab.wap.wtp.sar import OutgoingMessage


def _message() -> OutgoingMessage:
    return OutgoingMessage(b"x" * 10 * 100, segment_size=100, group_size=3)  # PSN 0..9


def test_groups_advance_only_on_the_ack_of_the_group_in_flight():
    m = _message()
    assert list(m.current_group()) == [0, 1, 2]
    assert not m.advance(1)  # not the group's last packet
    assert not m.advance(5)  # a packet not yet sent
    assert m.advance(2)
    assert list(m.current_group()) == [3, 4, 5]
    assert not m.advance(2)  # stale: the group already acknowledged
    assert m.advance(5) and m.advance(8)
    assert list(m.current_group()) == [9]


def test_the_final_ack_needs_the_last_group_in_flight():
    m = _message()
    assert not m.is_final_ack(9)  # PSN 9 cannot have arrived: only 0..2 were sent
    assert not m.is_final_ack(12)  # beyond the message
    for end in (2, 5, 8):
        assert m.advance(end)
    assert m.is_final_ack(9)
    assert not m.is_final_ack(8)


def test_an_ack_without_psn_ends_the_message_as_kannel_sends_it():
    assert _message().is_final_ack(None)
