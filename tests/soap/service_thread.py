"""The benchmark service on loopback in a thread of its own, for tests whose client runs
its own event loop (the command line, Kannel's clients)."""

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from wwanlab.soap.service import application


@contextmanager
def service_in_thread() -> Iterator[str]:
    """The service's URL while it runs."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(application(), access_log=None)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/soap"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.run_until_complete(runner.cleanup())
        loop.close()
