"""Round-robin queues per client: one busy phone cannot starve the others.

The gateway fetches at most N origin requests at once. Requests waiting for a slot
queue per client host; ``pop`` takes one from each host in turn, so a host with a
thousand queued requests and a host with one get alternate slots. A host's queue is
bounded: ``push`` refuses beyond ``per_client`` waiting items, and the caller answers
those with a congestion error instead of buffering without limit.
"""

from collections import OrderedDict, deque
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class FairQueue(Generic[K, T]):
    def __init__(self, per_client: int) -> None:
        if per_client < 1:
            raise ValueError("per_client must be at least 1")
        self.per_client = per_client
        self._queues: OrderedDict[K, deque[T]] = OrderedDict()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, client: K, item: T) -> bool:
        """Queue ``item`` behind ``client``'s others; False when its queue is full."""
        queue = self._queues.get(client)
        if queue is None:
            queue = self._queues[client] = deque()
        elif len(queue) >= self.per_client:
            return False
        queue.append(item)
        self._size += 1
        return True

    def pop(self) -> T:
        """The next item, taking clients in turn; raises IndexError when empty."""
        if not self._queues:
            raise IndexError("pop from an empty FairQueue")
        client, queue = next(iter(self._queues.items()))
        item = queue.popleft()
        self._size -= 1
        if queue:
            self._queues.move_to_end(client)
        else:
            del self._queues[client]
        return item

    def remove(self, client: K, item: T) -> bool:
        """Take a queued ``item`` out (its request was aborted); False if not queued."""
        queue = self._queues.get(client)
        if queue is None or item not in queue:
            return False
        queue.remove(item)
        self._size -= 1
        if not queue:
            del self._queues[client]
        return True

    def clients(self) -> int:
        return len(self._queues)
