import asyncio

from wwanlab.aio.udp import UdpDriver
from wwanlab.core.contract import PING_TIMEOUT, Echoer, Pinger, PongReceived
from wwanlab.core.events import Event


def test_pinger_and_echoer_over_real_udp_sockets():
    async def main() -> list[Event]:
        echo = await UdpDriver.bind(Echoer(), lambda e: None)
        events: list[Event] = []
        done = asyncio.Event()

        def on_event(e: Event) -> None:
            events.append(e)
            if len(events) == 3:
                done.set()

        pinger = Pinger(echo.local_address, count=3)
        client = await UdpDriver.bind(pinger, on_event)
        pinger.start(client.now())
        client.pump()
        await asyncio.wait_for(done.wait(), 5)
        client.close()
        echo.close()
        return events

    events = asyncio.run(main())
    assert [e.seq for e in events if isinstance(e, PongReceived)] == [0, 1, 2]
    assert all(e.rtt < PING_TIMEOUT for e in events if isinstance(e, PongReceived))


def test_timer_retransmits_when_the_peer_is_silent():
    async def main() -> int:
        silent = await UdpDriver.bind(Echoer(), lambda e: None)
        silent.close()  # nothing listens on that port any more
        await asyncio.sleep(0)
        pinger = Pinger(silent.local_address, count=1)
        sent: list[bytes] = []

        class Recorder(UdpDriver):
            def pump(self) -> None:
                out = self.endpoint.datagrams_to_send(self.now())
                sent.extend(d for d, _ in out)
                self._rearm()

        loop = asyncio.get_running_loop()
        _, driver = await loop.create_datagram_endpoint(
            lambda: Recorder(pinger, lambda e: None), local_addr=("127.0.0.1", 0)
        )
        pinger.start(driver.now())
        driver.pump()
        await asyncio.sleep(PING_TIMEOUT * 2.5)
        driver.close()
        return len(sent)

    assert asyncio.run(main()) == 3  # the first ping and two timer-driven resends
