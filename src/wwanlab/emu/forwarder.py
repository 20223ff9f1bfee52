"""The emulator's forwarder: real packets through the simulator's link models, in real time.

Two packet-oriented file descriptors (TUN devices; datagram sockets in tests), one read
being one IPv4 packet and one write one packet. Packets read from ``inner_fd`` take
the uplink ``Direction`` and are written to ``outer_fd`` when it delivers them;
packets read from ``outer_fd`` take the downlink to ``inner_fd``. A direction is asked
once per packet, at the time it was read, "delivered at t or dropped, why?", exactly
as the simulator's ``Channel`` asks it; times given to it are seconds since ``run``
began, so time-driven models (VDELDROP's phases) start at 0 as in the simulator.

Timing. The forwarding runs on its own thread with ``select``, whose timeout has
microsecond resolution, rather than on asyncio's timers, whose epoll timeout is
rounded to whole milliseconds. Linux lets a wait of ``x`` end late by its timer
slack, ``x/1000`` but at least 50 us (fs/select.c, ``select_estimate_accuracy``): a
0.5 s wait for serial-9k6's next packet may end 0.5 ms late. So a wait longer than
``SHORT_WAIT`` is cut to end ``SHORT_WAIT/2 + remaining/512`` early (more than the
slack), and the rest is waited afresh, short enough that only the 50 us minimum
applies. Each packet's error (actual write minus scheduled time) goes to the summary.

On a shared machine the thread must also win the CPU when its deadline comes: it
asks for ``SCHED_FIFO`` at the lowest real-time priority (allowed to root, as the
emulator runs), which runs it ahead of every normal process and, for real-time tasks,
removes the timer slack altogether. It sleeps in ``select`` between packets, and
Linux caps real-time tasks at 95% of a CPU (``sched_rt_runtime_us``) should a flood
keep it busy. Without the privilege it runs as a normal thread.

The forwarder thread needs the GIL for each packet; a busy thread of the same process
holds it for up to the interpreter's switch interval (5 ms by default), so ``run``
lowers that interval to ``SWITCH_INTERVAL`` while it forwards and restores it after.

Throughput: reads are batched (up to ``READ_BATCH`` per descriptor per wakeup, until
``EAGAIN``), packets wait in one heap per direction (a non-FIFO direction may
reorder), and nothing is logged per packet unless a pcap or log was asked for.
"""

import asyncio
import errno
import heapq
import os
import random
import select
import sys
import threading
import time
from pathlib import Path
from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.emu.capture import Capture, PacketLog
from wwanlab.emu.summary import DirectionStats
from wwanlab.link.base import Direction, Drop
from wwanlab.sim.ipv4 import ip_to_bytes
from wwanlab.sim.proxy import PacketProxy

MAX_PACKET = 65535  # RFC 791: Total Length is 16 bits, so no read needs more
READ_BATCH = 64  # packets read from one descriptor before deadlines are served again
SHORT_WAIT = 0.001  # s: waits up to this long are left to the 50 us minimum timer slack
SLACK_DIVISOR = 512  # a long wait ends remaining/512 early, more than select's /1000
SWITCH_INTERVAL = 0.0002  # s: longest a busy thread keeps the GIL from the forwarder
REALTIME_PRIORITY = 1  # sched(7): the lowest SCHED_FIFO priority, above every normal task


class _Pipe:
    """One direction's state on the forwarder thread."""

    __slots__ = (
        "blocked",
        "direction",
        "dst",
        "heap",
        "name",
        "open",
        "rng",
        "seq",
        "src",
        "stats",
    )

    def __init__(
        self, name: str, src: int, dst: int, direction: Direction, rng: random.Random
    ) -> None:
        self.name = name
        self.src = src
        self.dst = dst
        self.direction = direction
        self.rng = rng
        self.stats = DirectionStats()
        # (scheduled delivery, arrival order, arrival time, packet)
        self.heap: list[tuple[float, int, float, bytes]] = []
        self.seq = 0
        self.blocked = False  # the last write met EAGAIN: wait until dst is writable
        self.open = True  # a zero-length read (end of file: no IPv4 packet is empty)


class Forwarder:
    """Forwards packets between ``inner_fd`` and ``outer_fd`` through the link models.

    The descriptors are switched to non-blocking mode and are not closed here.
    """

    def __init__(
        self,
        inner_fd: int,
        outer_fd: int,
        downlink: Direction,
        uplink: Direction,
        rng_down: random.Random,
        rng_up: random.Random,
        *,
        pcap_prefix: Path | None = None,
        log: Path | None = None,
        proxy: PacketProxy | None = None,
        mobile: str | None = None,
    ) -> None:
        if (proxy is None) != (mobile is None):
            raise ValueError("a proxy needs the mobile's address, and only a proxy does")
        self._up = _Pipe("up", inner_fd, outer_fd, uplink, rng_up)
        self._down = _Pipe("down", outer_fd, inner_fd, downlink, rng_down)
        self.proxy = proxy
        self._mobile = None if mobile is None else ip_to_bytes(mobile)
        self.pcap_prefix = pcap_prefix
        self.log = log
        self._t0 = 0.0
        self._elapsed: float | None = None
        self._started = False
        self._realtime = False
        self._capture: Capture | None = None
        self._log: PacketLog | None = None

    async def run(self) -> None:
        """Forward until cancelled (or until an error on the descriptors, raised here)."""
        if self._started:
            raise RuntimeError("a Forwarder runs once")
        self._started = True
        self._t0 = time.monotonic()
        epoch = time.time() - (time.monotonic() - self._t0)
        try:
            if self.pcap_prefix is not None:
                self._capture = Capture(self.pcap_prefix, epoch)
            if self.log is not None:
                try:
                    self._log = PacketLog(self.log, epoch)
                except UsageError:
                    if self._capture is not None:
                        self._capture.discard()
                        self._capture = None
                    raise
            for fd in (self._up.src, self._down.src):
                os.set_blocking(fd, False)
            loop = asyncio.get_running_loop()
            done: asyncio.Future[None] = loop.create_future()
            stop_r, stop_w = os.pipe()
            thread = threading.Thread(
                target=self._thread, args=(stop_r, loop, done), name="wwanlab-forwarder"
            )
            _SWITCH.enter()
            thread.start()
            try:
                await asyncio.shield(done)
            finally:
                os.write(stop_w, b"x")
                thread.join()
                _SWITCH.leave()
                os.close(stop_r)
                os.close(stop_w)
        finally:
            self._elapsed = time.monotonic() - self._t0
            if self._capture is not None:
                self._capture.close()
            if self._log is not None:
                self._log.close()

    def summary(self) -> dict[str, Any]:
        """Per direction: packets, bytes, drops by reason, added delay and timer error
        percentiles (ms), achieved rate (IP bits/s); the seconds forwarded, and whether
        the forwarder thread ran with real-time priority."""
        elapsed = self._elapsed
        if elapsed is None:
            elapsed = time.monotonic() - self._t0 if self._started else 0.0
        return {
            "elapsed_s": round(elapsed, 6),
            "realtime": self._realtime,
            "down": self._down.stats.as_dict(),
            "up": self._up.stats.as_dict(),
        }

    # --- the forwarder thread ------------------------------------------------------------

    def _thread(
        self, stop_fd: int, loop: asyncio.AbstractEventLoop, done: "asyncio.Future[None]"
    ) -> None:
        try:
            try:
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
                self._realtime = True
            except OSError:  # not root: the default scheduler, and its 50 us timer slack
                pass
            self._serve(stop_fd)
        except BaseException as exc:  # handed to the awaiting task
            loop.call_soon_threadsafe(_settle, done, exc)
        else:
            loop.call_soon_threadsafe(_settle, done, None)

    def _serve(self, stop_fd: int) -> None:
        clock = time.monotonic
        t0 = self._t0
        pipes = (self._up, self._down)
        proxy = self.proxy
        while True:
            now = clock() - t0
            wake = float("inf")
            if proxy is not None:
                due = proxy.get_timer()
                if due is not None and due <= now:
                    proxy.handle_timer(now)
                    self._from_proxy(now)
                    due = proxy.get_timer()
                if due is not None:
                    wake = due
            writable = []
            for pipe in pipes:
                if pipe.heap and not pipe.blocked:
                    self._deliver(pipe, now)
                if pipe.blocked:
                    writable.append(pipe.dst)
                elif pipe.heap:
                    wake = min(wake, pipe.heap[0][0])
            readable = [pipe.src for pipe in pipes if pipe.open]
            readable.append(stop_fd)
            timeout: float | None = None
            if wake != float("inf"):
                remaining = wake - (clock() - t0)
                timeout = max(0.0, remaining)
                if remaining > SHORT_WAIT:
                    timeout = remaining - SHORT_WAIT / 2 - remaining / SLACK_DIVISOR
            ready_r, ready_w, _ = select.select(readable, writable, (), timeout)
            if stop_fd in ready_r:
                return
            for pipe in pipes:
                if pipe.dst in ready_w:
                    pipe.blocked = False
                if pipe.src in ready_r:
                    self._read(pipe)

    def _read(self, pipe: _Pipe) -> None:
        clock = time.monotonic
        t0 = self._t0
        src = pipe.src
        direction = pipe.direction
        rng = pipe.rng
        stats = pipe.stats
        counters = stats.counters
        heap = pipe.heap
        capture = self._capture
        log = self._log
        for _ in range(READ_BATCH):
            try:
                packet = os.read(src, MAX_PACKET)
            except BlockingIOError:
                return
            now = clock() - t0
            if not packet:
                pipe.open = False
                return
            size = len(packet)
            counters.sent_packets += 1
            counters.sent_bytes += size
            if stats.first_arrival is None:
                stats.first_arrival = now
            if capture is not None:
                capture.entered(pipe.name, now, packet)
            if pipe is self._down and self.proxy is not None:
                # the proxy sits at the wired end: it sees the packet before the link
                keep = self.proxy.receive_packet(packet, now)
                self._from_proxy(now)
                if not keep:
                    continue
            verdict = direction.transmit(size, now, rng)
            if isinstance(verdict, Drop):
                counters.drop(verdict.reason, size)
                if log is not None:
                    log.dropped(pipe.name, size, now, verdict.reason)
                continue
            heapq.heappush(heap, (verdict, pipe.seq, now, packet))
            pipe.seq += 1

    def _deliver(self, pipe: _Pipe, now: float) -> None:
        clock = time.monotonic
        t0 = self._t0
        dst = pipe.dst
        heap = pipe.heap
        stats = pipe.stats
        counters = stats.counters
        capture = self._capture
        log = self._log
        proxy = self.proxy if pipe is self._up else None
        while heap and heap[0][0] <= now:
            scheduled, _, arrival, packet = heap[0]
            if proxy is not None and not proxy.receive_packet(packet, now):
                heapq.heappop(heap)  # the proxy took it after the link (a suppressed ACK)
                counters.delivered_packets += 1
                counters.delivered_bytes += len(packet)
                self._from_proxy(now)
                continue
            try:
                os.write(dst, packet)
            except BlockingIOError:
                pipe.blocked = True
                return
            except OSError as exc:  # e.g. a TUN refusing a packet, a closed socket's peer
                heapq.heappop(heap)
                reason = f"write:{errno.errorcode.get(exc.errno or 0, 'error')}"
                counters.drop(reason, len(packet))
                if log is not None:
                    log.dropped(pipe.name, len(packet), arrival, reason)
                continue
            sent = clock() - t0
            heapq.heappop(heap)
            counters.delivered_packets += 1
            counters.delivered_bytes += len(packet)
            stats.delay.add(sent - arrival)
            stats.timer_error.add(sent - scheduled)
            stats.last_departure = sent
            if capture is not None:
                capture.left(pipe.name, sent, packet)
            if log is not None:
                log.departed(pipe.name, len(packet), arrival, scheduled, sent)

    def _from_proxy(self, now: float) -> None:
        """Send what the proxy originated: toward the mobile through the downlink model,
        anything else straight to the wired side."""
        assert self.proxy is not None
        down = self._down
        for packet in self.proxy.packets_to_send(now):
            if packet[16:20] == self._mobile:
                verdict = down.direction.transmit(len(packet), now, down.rng)
                if isinstance(verdict, Drop):
                    down.stats.counters.drop(verdict.reason, len(packet))
                    continue
                heapq.heappush(down.heap, (verdict, down.seq, now, packet))
                down.seq += 1
            else:
                try:
                    os.write(self._up.dst, packet)
                except OSError:  # the wired side refused it: TCP will resend
                    continue


class _SwitchInterval:
    """Keeps the interpreter's switch interval at ``SWITCH_INTERVAL`` while any
    forwarder runs, and gives back the previous value when the last one stops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._saved = 0.0

    def enter(self) -> None:
        with self._lock:
            if self._running == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(SWITCH_INTERVAL)
            self._running += 1

    def leave(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                sys.setswitchinterval(self._saved)


_SWITCH = _SwitchInterval()


def _settle(done: "asyncio.Future[None]", exc: BaseException | None) -> None:
    if done.done():
        return
    if exc is None:
        done.set_result(None)
    else:
        done.set_exception(exc)
