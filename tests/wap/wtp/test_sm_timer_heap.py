"""WtpEndpoint's timers under load: firing order, and a pinned log of a busy lossy run.

The endpoint fires every due transaction of one ``handle_timer`` call in handle order
(the order transactions were opened), whatever their deadlines; ``get_timer`` is the
earliest deadline of the transactions still open. The busy scenario below drives many
concurrent transactions of every class over a lossy, reordering link, calls one side's
timers late on purpose (so several deadlines are due at once) and pins the SHA-256 of
everything both sides did: every datagram, event, timer value and table row count.
"""

import hashlib
import heapq
import itertools
import random
from collections import Counter
from collections.abc import Callable
from functools import partial

from wwanlab.core.address import Address
from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import InvokeIndication, ResultIndication, WtpEvent
from wwanlab.wap.wtp.machine import WtpStateError
from wwanlab.wap.wtp.pdu import Invoke, NegativeAck, SegmentedInvoke, decode
from wwanlab.wap.wtp.timers import WtpConfig

C0, C1, C2 = TransactionClass.CLASS_0, TransactionClass.CLASS_1, TransactionClass.CLASS_2
SERVER: Address = ("10.0.0.2", 9201)
CLIENTS: list[Address] = [("10.0.0.1", 49152 + i) for i in range(3)]
SMALL_SEGMENTS = WtpConfig(segment_size=300)

# Computed from the endpoint that scanned every transaction on each timer call.
BUSY_LOG_SHA256 = "3b7819f672b8aeba1cb63f8e92c5a2d6ef5963f82085b3d562bc016d1a15edc8"


def test_due_timers_fire_in_handle_order_not_deadline_order() -> None:
    ep = WtpEndpoint(random.Random(5), SMALL_SEGMENTS)
    h1 = ep.invoke(SERVER, bytes(1000), C2, True, 0.0)  # 4 packets, group of 3 in flight
    h2 = ep.invoke(SERVER, b"short", C2, True, 0.5)
    tid1, tid2 = ep.tid_of(h1), ep.tid_of(h2)
    assert tid1 is not None and tid2 is not None
    ep.receive_datagram(  # a NAK restarts h1's timer R: 1.0 + 7.0, after h2's 0.5 + 7.0
        bytes([0x38, 0x80 | tid1 >> 8, tid1 & 0xFF, 0x00]), SERVER, 1.0
    )
    ep.datagrams_to_send(1.0)
    assert ep.get_timer() == 7.5
    ep.handle_timer(7.4)
    assert ep.datagrams_to_send(7.4) == []
    ep.handle_timer(9.0)  # both due: h1 (deadline 8.0) goes first, being the older handle
    out = [decode(data)[0] for data, _ in ep.datagrams_to_send(9.0)]
    assert [(type(p), p.tid, getattr(p, "rid", None)) for p in out] == [
        (SegmentedInvoke, tid1, True),
        (Invoke, tid2, True),
    ]
    assert ep.get_timer() == 16.0  # h2 restarted at 9.0 + 7.0; h1 too


def test_nak_bytes_are_a_negative_ack() -> None:
    """The hand-made NAK above is what the codec reads as one (guards that test)."""
    (pdu,) = decode(bytes([0x38, 0x80 | 0x12, 0x34, 0x00]))
    assert pdu == NegativeAck(tid=0x1234, missing=(), tid_response=True)


def test_timer_of_a_finished_transaction_is_gone() -> None:
    ep = WtpEndpoint(random.Random(3))
    h = ep.invoke(SERVER, b"x", C1, False, 0.0)
    assert ep.get_timer() == 7.0
    ep.abort(h, 0xE8, 1.0)
    assert [type(decode(d)[0]).__name__ for d, _ in ep.datagrams_to_send(1.0)] == [
        "Invoke",
        "Abort",
    ]
    assert ep.pending() == 0 and ep.get_timer() is None
    ep.handle_timer(100.0)
    assert ep.datagrams_to_send(100.0) == [] and ep.next_event() is None


class Busy:
    """Three clients and a server over one lossy link; every action is logged."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.server = WtpEndpoint(random.Random(seed + 1), SMALL_SEGMENTS)
        self.clients = {
            addr: WtpEndpoint(random.Random(seed + 2 + i), SMALL_SEGMENTS)
            for i, addr in enumerate(CLIENTS)
        }
        self.now = 0.0
        self.log: list[str] = []
        self._order = itertools.count()
        self._arrivals: list[tuple[float, int, Address, Address, bytes]] = []
        self._actions: list[tuple[float, int, Callable[[], None]]] = []
        self.next_server_tick = 0.0
        self.peak = 0  # most transactions open at once, over all endpoints

    def at(self, t: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._actions, (t, next(self._order), action))

    def endpoint(self, addr: Address) -> WtpEndpoint:
        return self.server if addr == SERVER else self.clients[addr]

    def command(self, name: str, addr: Address, run: Callable[[], object]) -> None:
        try:
            self.log.append(f"{self.now:.6f} {addr} {name} -> {run()!r}")
        except (KeyError, WtpStateError) as error:
            self.log.append(f"{self.now:.6f} {addr} {name} refused {error!r}")

    def react(self, addr: Address, event: WtpEvent) -> None:
        ep, now = self.endpoint(addr), self.now
        if isinstance(event, InvokeIndication) and event.tcl == C2:
            reply = event.data[::-1] + bytes(self.rng.randrange(0, 900))
            if self.rng.random() < 0.5:
                self.command("result", addr, lambda: ep.result(event.handle, reply, now))
            else:  # answered late: the initiator's A or R timers run meanwhile
                delay = self.rng.uniform(0.0, 12.0)
                if event.user_ack:
                    self.command("invoke_ack", addr, lambda: ep.invoke_ack(event.handle, now))
                self.at(
                    now + delay,
                    lambda: self.command(
                        "result", addr, lambda: ep.result(event.handle, reply, self.now)
                    ),
                )
        elif isinstance(event, InvokeIndication) and event.user_ack:
            self.command("invoke_ack", addr, lambda: ep.invoke_ack(event.handle, now))
        elif isinstance(event, ResultIndication):
            delay = self.rng.choice([0.0, 0.0, 2.0, 9.0])
            self.at(
                now + delay,
                lambda: self.command(
                    "result_ack", addr, lambda: ep.result_ack(event.handle, self.now)
                ),
            )

    def drain(self, addr: Address) -> None:
        ep = self.endpoint(addr)
        self.peak = max(self.peak, sum(e.pending() for e in [self.server, *self.clients.values()]))
        while (event := ep.next_event()) is not None:
            self.log.append(f"{self.now:.6f} {addr} event {event!r}")
            self.react(addr, event)
        for data, to in ep.datagrams_to_send(self.now):
            lost = self.rng.random() < 0.2
            self.log.append(f"{self.now:.6f} {addr}->{to} {data.hex()} {'lost' if lost else ''}")
            if not lost:  # jitter reorders datagrams
                t = self.now + 0.05 + self.rng.uniform(0.0, 0.3)
                heapq.heappush(self._arrivals, (t, next(self._order), addr, to, data))

    def schedule_invokes(self, count: int) -> None:
        for _ in range(count):
            addr = self.rng.choice(CLIENTS)
            tcl = self.rng.choice([C0, C1, C2, C2, C2])
            user_ack = self.rng.random() < 0.7
            data = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 1500)))
            t = self.rng.uniform(0.0, 40.0)
            self.at(t, partial(self.open, addr, data, tcl, user_ack))
            if self.rng.random() < 0.05:  # the user gives up on some
                self.at(t + self.rng.uniform(0.0, 20.0), partial(self.abort, addr))

    def open(self, addr: Address, data: bytes, tcl: TransactionClass, user_ack: bool) -> None:
        ep = self.clients[addr]
        self.command("invoke", addr, lambda: ep.invoke(SERVER, data, tcl, user_ack, self.now))

    def abort(self, addr: Address) -> None:
        ep = self.clients[addr]
        handles = ep.handles()
        if handles:
            h = handles[self.rng.randrange(len(handles))]
            self.command("abort", addr, lambda: ep.abort(h, 0xE8, self.now))

    def candidates(self) -> list[float]:
        times = [self.next_server_tick] if self.server.get_timer() is not None else []
        times += [t for ep in self.clients.values() if (t := ep.get_timer()) is not None]
        if self._arrivals:
            times.append(self._arrivals[0][0])
        if self._actions:
            times.append(self._actions[0][0])
        return times

    def run(self) -> None:
        for _ in range(1_000_000):
            times = self.candidates()
            if not times:
                return
            self.now = max(self.now, min(times))
            if self._arrivals and self._arrivals[0][0] <= self.now:
                _, _, src, to, data = heapq.heappop(self._arrivals)
                self.endpoint(to).receive_datagram(data, src, self.now)
                self.drain(to)
            elif self._actions and self._actions[0][0] <= self.now:
                heapq.heappop(self._actions)[2]()
                for addr in [SERVER, *CLIENTS]:
                    self.drain(addr)
            else:
                self.fire_timers()
        raise AssertionError("the busy scenario did not settle")

    def fire_timers(self) -> None:
        """Clients fire each timer on time; the server only every 1.5 s, so late."""
        for addr, ep in [(SERVER, self.server), *self.clients.items()]:
            timer = ep.get_timer()
            if addr == SERVER:
                if self.now < self.next_server_tick:
                    continue
                self.next_server_tick = self.now + 1.5
            if timer is not None and timer <= self.now:
                self.log.append(f"{self.now:.6f} {addr} timers due since {timer:.6f}")
                ep.handle_timer(self.now)
                self.drain(addr)
            self.log.append(f"{self.now:.6f} {addr} next timer {ep.get_timer()!r}")


def test_busy_lossy_run_is_pinned() -> None:
    busy = Busy(seed=2026)
    busy.schedule_invokes(400)
    busy.run()
    text = "\n".join(busy.log)
    fired = sum((ep.fired for ep in [busy.server, *busy.clients.values()]), Counter[str]())
    text += "\n" + repr(sorted(fired.items()))
    # The run is busy: many open at once, many losses, timers of every kind fired.
    assert sum("lost" in line for line in busy.log) > 500
    assert busy.peak > 100
    assert fired.total() > 3000
    assert any("TIMER_TO_A" in k for k in fired) and any("TIMER_TO_W" in k for k in fired)
    assert any("TIMER_TO_R" in k for k in fired)
    assert all(ep.pending() == 0 for ep in [busy.server, *busy.clients.values()])
    assert hashlib.sha256(text.encode()).hexdigest() == BUSY_LOG_SHA256
