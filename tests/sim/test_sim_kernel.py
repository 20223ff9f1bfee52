import pytest

from wwanlab.sim.kernel import Kernel, SimulationError


def test_callbacks_run_in_time_order_and_ties_in_schedule_order():
    k = Kernel()
    seen: list[tuple[float, str]] = []
    for label, at in [("c", 2.0), ("a", 1.0), ("b1", 1.5), ("b2", 1.5), ("b3", 1.5)]:
        k.schedule(lambda lbl=label: seen.append((k.now, lbl)), at=at)
    assert k.run() == 5
    assert seen == [(1.0, "a"), (1.5, "b1"), (1.5, "b2"), (1.5, "b3"), (2.0, "c")]


def test_delay_is_relative_to_now_and_args_are_passed():
    k = Kernel()
    got: list[tuple[float, int, str]] = []

    def first() -> None:
        k.schedule(lambda x, y: got.append((k.now, x, y)), 7, "z", delay=0.25)

    k.schedule(first, at=1.0)
    k.run()
    assert got == [(1.25, 7, "z")]


def test_cancelled_handle_never_runs():
    k = Kernel()
    ran: list[str] = []
    h = k.schedule(lambda: ran.append("x"), delay=1.0)
    k.schedule(lambda: ran.append("y"), delay=2.0)
    h.cancel()
    assert h.cancelled
    assert k.run() == 1
    assert ran == ["y"]


def test_run_until_stops_before_later_events_and_sets_the_clock():
    k = Kernel()
    ran: list[float] = []
    for t in (1.0, 2.0, 3.0):
        k.schedule(lambda: ran.append(k.now), at=t)
    assert k.run(until=2.0) == 2  # an event exactly at ``until`` runs
    assert k.now == 2.0
    assert k.peek() == 3.0
    assert k.run(until=10.0) == 1
    assert k.now == 10.0  # the clock advances to until even with nothing left
    assert ran == [1.0, 2.0, 3.0]
    assert k.peek() is None


def test_stop_ends_run_after_current_callback():
    k = Kernel()
    k.schedule(k.stop, at=1.0)
    k.schedule(lambda: None, at=2.0)
    assert k.run() == 1
    assert k.now == 1.0
    assert k.run() == 1


def test_scheduling_into_the_past_or_ambiguously_is_an_error():
    k = Kernel()
    k.schedule(lambda: None, at=5.0)
    k.run()
    with pytest.raises(SimulationError):
        k.schedule(lambda: None, at=4.0)
    with pytest.raises(SimulationError):
        k.schedule(lambda: None, delay=-1.0)
    with pytest.raises(SimulationError):
        k.schedule(lambda: None, at=6.0, delay=1.0)
    with pytest.raises(SimulationError):
        k.schedule(lambda: None, at=float("nan"))
    with pytest.raises(SimulationError):
        k.run(until=1.0)


def test_named_streams_come_from_the_seed_and_are_independent():
    a, b = Kernel(seed=3), Kernel(seed=3)
    xs = [a.stream("link", "x").random() for _ in range(3)]
    b.stream("other").random()  # drawing from another stream shifts nothing
    assert [b.stream("link", "x").random() for _ in range(3)] == xs
    assert a.stream("link", "x") is a.stream("link", "x")
    assert Kernel(seed=4).stream("link", "x").random() != xs[0]
