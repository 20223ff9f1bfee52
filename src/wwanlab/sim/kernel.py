"""The discrete-event kernel: a heap of timed callbacks on virtual time.

Entries are ``(time, sequence, handle)``; the sequence number breaks ties so that two
callbacks due at the same instant run in the order they were scheduled, which makes a
run a pure function of the scenario and its seed. Randomness comes from named streams
(``wwanlab.core.rng.RngStreams``) derived from the scenario seed, one per component, and
never from the global ``random`` module.
"""

import heapq
import itertools
import random
from collections.abc import Callable
from typing import Any

from wwanlab.core.errors import WwanlabError
from wwanlab.core.rng import RngStreams

Callback = Callable[..., object]


class SimulationError(WwanlabError, RuntimeError):
    """A misuse of the kernel: scheduling into the past, a bad time."""


class Handle:
    """A scheduled callback; ``cancel()`` stops it from running."""

    __slots__ = ("_args", "_fn", "when")

    def __init__(self, when: float, fn: Callback, args: tuple[Any, ...]) -> None:
        self.when = when
        self._fn: Callback | None = fn
        self._args = args

    def cancel(self) -> None:
        """Forget the callback; its heap entry is skipped when it comes up."""
        self._fn = None
        self._args = ()

    @property
    def cancelled(self) -> bool:
        return self._fn is None

    def __repr__(self) -> str:
        state = "cancelled" if self._fn is None else getattr(self._fn, "__qualname__", "?")
        return f"<Handle at {self.when!r} {state}>"


class Kernel:
    """Runs callbacks in time order; ``now`` is the time of the one running."""

    def __init__(self, seed: int = 0) -> None:
        self.now = 0.0
        self.rng = RngStreams(seed)
        self.events_run = 0
        self._heap: list[tuple[float, int, Handle]] = []
        self._seq = itertools.count()
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
        handle = Handle(when, fn, args)
        heapq.heappush(self._heap, (when, next(self._seq), handle))
        return handle

    def call_at(self, when: float, fn: Callback, *args: Any) -> Handle:
        """``schedule(fn, *args, at=when)`` without keyword parsing, for hot paths."""
        if not when >= self.now:
            raise SimulationError(f"cannot schedule at {when!r}, before now={self.now!r}")
        handle = Handle(when, fn, args)
        heapq.heappush(self._heap, (when, next(self._seq), handle))
        return handle

    def peek(self) -> float | None:
        """The time of the next live entry, or None when nothing is pending."""
        heap = self._heap
        while heap and heap[0][2]._fn is None:
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
            entry = pop(heap)
            when, _, handle = entry
            if when > limit:
                heapq.heappush(heap, entry)
                break
            fn = handle._fn
            if fn is None:
                continue
            handle._fn = None
            self.now = when
            fn(*handle._args)
            ran += 1
            if self._stopped:
                break
        if until is not None and not self._stopped and self.now < limit:
            self.now = limit
        self.events_run += ran
        return ran
