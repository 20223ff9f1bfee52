"""Kannel's fakewap, a real WAP client, against our WspServer over loopback UDP."""

import asyncio
import random
import threading
from pathlib import Path

import pytest

from wwanlab.aio.udp import UdpDriver
from wwanlab.core.events import Event
from wwanlab.peers.kannel import FakewapOptions, FakewapResult, kannel_installed, run_fakewap
from wwanlab.wap.wsp.connectionless import ConnectionlessServer
from wwanlab.wap.wsp.events import MethodInvoke, SessionConnected
from wwanlab.wap.wsp.session import WspServer

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel (fakewap) is not installed"),
]

BODY = bytes(range(256)) * 40  # 10 240 octets: 8 packets of SAR


def serve(connectionless: bool, options: FakewapOptions) -> tuple[FakewapResult, list[Event]]:
    """Run our server on a thread's event loop while fakewap talks to it."""
    events: list[Event] = []
    ready = threading.Event()
    stop = threading.Event()
    port: list[int] = []

    async def main() -> None:
        server = ConnectionlessServer() if connectionless else WspServer(random.Random(1))
        driver: UdpDriver

        def on_event(e: Event) -> None:
            events.append(e)
            if isinstance(e, MethodInvoke):
                server.reply(e.handle, 200, (("Content-Type", "text/plain"),), BODY, driver.now())

        driver = await UdpDriver.bind(server, on_event, ("127.0.0.1", 0))
        port.append(driver.local_address[1])
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.02)
        driver.close()

    thread = threading.Thread(target=asyncio.run, args=(main(),))
    thread.start()
    ready.wait(5)
    try:
        result = run_fakewap(
            ["http://origin/x"], FakewapOptions(**{**options.__dict__, "port": port[0]})
        )
    finally:
        stop.set()
        thread.join(5)
    return result, events


def test_fakewap_sessions_with_sar_replies(tmp_path: Path):
    options = FakewapOptions(gateway="127.0.0.1", max_requests=3, out_file=tmp_path / "body")
    result, events = serve(False, options)
    assert result.ok and result.replies_ok == 3, result.log[-2000:]
    assert (tmp_path / "body").read_bytes() == BODY
    assert sum(isinstance(e, SessionConnected) for e in events) == 3
    assert sum(isinstance(e, MethodInvoke) for e in events) == 3


def test_fakewap_connectionless(tmp_path: Path):
    options = FakewapOptions(
        gateway="127.0.0.1", connectionless=True, max_requests=2, out_file=tmp_path / "body"
    )
    result, events = serve(True, options)
    assert result.ok and result.replies_ok == 2, result.log[-2000:]
    assert sum(isinstance(e, MethodInvoke) for e in events) == 2
