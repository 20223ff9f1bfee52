import pytest

from wwanlab.wap.gateway.fair import FairQueue


def test_clients_take_turns_whatever_their_queue_length():
    queue: FairQueue[str, str] = FairQueue(per_client=100)
    for i in range(5):
        queue.push("greedy", f"g{i}")
    queue.push("modest", "m0")
    queue.push("late", "l0")
    assert [queue.pop() for _ in range(len(queue))] == ["g0", "m0", "l0", "g1", "g2", "g3", "g4"]
    with pytest.raises(IndexError):
        queue.pop()


def test_a_client_queue_is_bounded_and_items_can_be_removed():
    queue: FairQueue[str, int] = FairQueue(per_client=2)
    assert queue.push("a", 1) and queue.push("a", 2)
    assert not queue.push("a", 3)
    assert queue.push("b", 4)
    assert queue.remove("a", 1) and not queue.remove("a", 1) and not queue.remove("c", 1)
    assert (len(queue), queue.clients()) == (2, 2)
    assert [queue.pop(), queue.pop()] == [2, 4]
