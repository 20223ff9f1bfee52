"""WWP over real UDP sockets: send a byte string to a receiver, or receive one.

Both run the sans-IO ``WwpSender``/``WwpReceiver`` under the one ``UdpDriver``. The
receiver hands data to ``write`` in order as it arrives and, once the stream has
ended, lingers for ``LINGER`` seconds answering repeated FINs (the sender's FIN_ACK may
be lost) before it returns.

The sender's socket is connected to the receiver, so the kernel reports an ICMP port
unreachable for it (a connected UDP socket's ECONNREFUSED, Linux udp(7)): before any
answer that means no receiver listens there, and the sender gives up at once
(``WwpUnreachable``). Where no ICMP comes back, the set-up retry limit ends the wait
(``WwpConfig.setup_retries``).
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wwanlab.aio.udp import EventHandler, UdpDriver
from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.wwp import (
    DataReceived,
    Failed,
    Finished,
    StreamEnded,
    WwpConfig,
    WwpReceiver,
    WwpSender,
)
from wwanlab.transports.wwp.stats import WwpStats

LINGER = 2.0  # s the receiver keeps answering FIN after the stream ended
PROGRESS_EVERY = 2.0  # s between calls of a sender's ``progress``

Progress = Callable[[int, int], object]
"""Called with (octets acknowledged, octets in all)."""


class WwpFailed(Exception):
    """The sender gave up (its retries went unanswered)."""


class WwpUnreachable(WwpFailed):
    """No receiver answered the set-up: the port is closed, or nothing answered CONN."""


class WwpStopped(Exception):
    """The receiver was told to stop before the stream ended."""

    def __init__(self, received: int) -> None:
        super().__init__(f"stopped after {received} octets, before the stream ended")
        self.received = received


class _SenderDriver(UdpDriver):
    """A driver whose connected socket hears ICMP port unreachable (``refused``)."""

    def __init__(self, sender: WwpSender, on_event: EventHandler, refused: Callable[[], None]):
        super().__init__(sender, on_event)
        self.refused = refused

    def error_received(self, exc: Exception) -> None:
        super().error_received(exc)
        if isinstance(exc, ConnectionRefusedError) and not self.received[0]:
            self.refused()


@dataclass
class Outcome:
    size: int
    seconds: float
    stats: WwpStats

    @property
    def goodput(self) -> float:
        return self.size / self.seconds if self.seconds > 0 else 0.0


async def send(
    data: bytes,
    peer: Address,
    config: WwpConfig | None = None,
    local: Address = ("0.0.0.0", 0),
    progress: Progress | None = None,
) -> Outcome:
    """Send ``data`` to the receiver at ``peer``; returns when the FIN is answered.
    ``progress`` hears how far it got every ``PROGRESS_EVERY`` seconds."""
    sender = WwpSender(peer, config)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Event] = loop.create_future()

    def on_event(event: Event) -> None:
        if isinstance(event, Finished | Failed) and not done.done():
            done.set_result(event)

    def refused() -> None:
        if not done.done():
            done.set_result(Failed("port unreachable (ICMP)", setup=True))

    _, driver = await loop.create_datagram_endpoint(
        lambda: _SenderDriver(sender, on_event, refused), local_addr=local, remote_addr=peer
    )
    start = driver.now()
    try:
        sender.connect(start)
        sender.send(data, start)
        sender.close(start)
        driver.pump()
        while not done.done() and progress is not None:
            await asyncio.wait([done], timeout=PROGRESS_EVERY)
            progress(sender.acknowledged, len(data))
        outcome = await done
    finally:
        driver.close()
    if isinstance(outcome, Failed):
        raise (WwpUnreachable if outcome.setup else WwpFailed)(outcome.reason)
    return Outcome(len(data), driver.now() - start, sender.stats)


async def receive(
    write: Callable[[bytes], object],
    local: Address,
    config: WwpConfig | None = None,
    *,
    ready: Callable[[Address], None] | None = None,
    stop: asyncio.Event | None = None,
) -> Outcome:
    """Receive one stream on ``local``, passing its octets to ``write`` in order;
    ``WwpStopped`` if ``stop`` is set before the stream ends."""
    receiver = WwpReceiver(config)
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[int] = loop.create_future()
    received = 0

    def on_event(event: Event) -> None:
        nonlocal received
        if isinstance(event, DataReceived):
            write(event.data)
            received += len(event.data)
        elif isinstance(event, StreamEnded) and not ended.done():
            ended.set_result(event.size)

    driver = await UdpDriver.bind(receiver, on_event, local)
    if ready is not None:
        ready(driver.local_address)
    try:
        if stop is not None:
            stopped = asyncio.ensure_future(stop.wait())
            waits: list[asyncio.Future[Any]] = [ended, stopped]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not ended.done():
                raise WwpStopped(received)
        size = await ended
        assert receiver.opened_at is not None
        seconds = driver.now() - receiver.opened_at
        await asyncio.sleep(LINGER)
    finally:
        driver.close()
    return Outcome(size, seconds, receiver.stats)
