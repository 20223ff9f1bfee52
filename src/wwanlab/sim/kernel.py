"""The discrete-event kernel: a heap of timed callbacks on virtual time.

Entries are ``[time, sequence, callback, args]``; the sequence number breaks ties so that two
callbacks due at the same instant run in the order they were scheduled, which makes a
run a pure function of the scenario and its seed. Randomness comes from named streams
(``wwanlab.core.rng.RngStreams``) derived from the scenario seed, one per component, and
never from the global ``random`` module.
"""

import heapq
import random
from collections.abc import Callable
from typing import Any

from wwanlab.core.rng import RngStreams
from wwanlab.sim.errors import SimulationError

__all__ = ["Callback", "Entry", "Handle", "Kernel", "SimulationError"]

Callback = Callable[..., object]


Entry = list[Any]
"""A heap entry ``[when, sequence, fn, args]``; ``fn`` is None once cancelled or run.

A list rather than a tuple so that cancelling is one store into the entry the heap
already holds, with no separate handle object for callbacks nobody can cancel."""


class Handle:
    """A scheduled callback; ``cancel()`` stops it from running."""

    __slots__ = ("_entry",)

    def __init__(self, entry: Entry) -> None:
        self._entry = entry

    @property
    def when(self) -> float:
        """The virtual time the callback is (or was) due."""
        when: float = self._entry[0]
        return when

    def cancel(self) -> None:
        """Forget the callback; its heap entry is skipped when it comes up."""
        entry = self._entry
        entry[2] = None
        entry[3] = ()

    @property
    def cancelled(self) -> bool:
        """True once cancelled, and also once the callback has run."""
        return self._entry[2] is None

    def __repr__(self) -> str:
        fn = self._entry[2]
        state = "cancelled" if fn is None else getattr(fn, "__qualname__", "?")
        return f"<Handle at {self.when!r} {state}>"


class Kernel:
    """Runs callbacks in time order; ``now`` is the time of the one running."""

    def __init__(self, seed: int = 0) -> None:
        self.now = 0.0
        self.rng = RngStreams(seed)
        self.events_run = 0
        self._heap: list[Entry] = []
        self._seq = 0  # the next entry's sequence number (an int: no call per entry)
        self._stopped = False

    @property
    def seed(self) -> int:
        return self.rng.seed

    def stream(self, *names: str) -> random.Random:
        """The named random stream of one component (same names, same stream)."""
        return self.rng.stream(*names)

    def schedule(
        self,
        fn: Callback,
        *args: Any,
        at: float | None = None,
        delay: float | None = None,
    ) -> Handle:
        """Run ``fn(*args)`` at absolute time ``at`` or ``delay`` seconds from now."""
        if (at is None) == (delay is None):
            raise SimulationError("schedule() takes exactly one of at= or delay=")
        when = self.now + delay if delay is not None else at
        assert when is not None
        if not when >= self.now:  # also rejects NaN
            raise SimulationError(f"cannot schedule at {when!r}, before now={self.now!r}")
        entry = [when, self._seq, fn, args]
        self._seq += 1
        heapq.heappush(self._heap, entry)
        return Handle(entry)

    def call_at(self, when: float, fn: Callback, *args: Any) -> Handle:
        """``schedule(fn, *args, at=when)`` without keyword parsing, for hot paths."""
        if not when >= self.now:
            raise SimulationError(f"cannot schedule at {when!r}, before now={self.now!r}")
        entry = [when, self._seq, fn, args]
        self._seq += 1
        heapq.heappush(self._heap, entry)
        return Handle(entry)

    def post_at(self, when: float, fn: Callback, *args: Any) -> None:
        """``call_at`` for a callback that is never cancelled: no ``Handle`` is made.

        Packet deliveries use it; it orders exactly as ``call_at`` does.
        """
        if not when >= self.now:
            raise SimulationError(f"cannot schedule at {when!r}, before now={self.now!r}")
        heapq.heappush(self._heap, [when, self._seq, fn, args])
        self._seq += 1

    def peek(self) -> float | None:
        """The time of the next live entry, or None when nothing is pending."""
        heap = self._heap
        while heap and heap[0][2] is None:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def stop(self) -> None:
        """Make ``run`` return after the callback now running."""
        self._stopped = True

    def run(self, until: float | None = None) -> int:
        """Run callbacks due at or before ``until`` (all when None); return how many ran.

        With ``until`` the clock ends at ``until`` even when the heap empties earlier, so
        successive ``run(until=...)`` calls step virtual time predictably.
        """
        heap = self._heap
        pop = heapq.heappop
        limit = float("inf") if until is None else until
        if limit < self.now:
            raise SimulationError(f"cannot run until {until!r}, before now={self.now!r}")
        self._stopped = False
        ran = 0
        while heap:
            if heap[0][0] > limit:
                break
            entry = pop(heap)
            when, _, fn, args = entry
            if fn is None:
                continue
            entry[2] = None  # a Handle of a callback that ran reads as cancelled
            self.now = when
            fn(*args)
            ran += 1
            if self._stopped:
                break
        if until is not None and not self._stopped and self.now < limit:
            self.now = limit
        self.events_run += ran
        return ran
