"""A real browser's page load: headless Chromium driven over the DevTools protocol.

Chromium is Debian's (``/usr/bin/chromium``). It is driven over its DevTools protocol
(CDP) on a pair of pipes (``--remote-debugging-pipe``: JSON messages ended by a NUL),
rather than through Playwright (its Python package pins its own browser build and
driver) or Selenium (one more daemon, chromedriver, whose version must match): a page
load needs five CDP methods. Pipes, not a port, because the browser runs inside an
emulated link's namespace, whose loopback the bench cannot reach, and the control
traffic must not cross the emulated link. The page load time is the browser's own
Navigation Timing (W3C Navigation Timing Level 2): ``loadEventEnd`` from the
navigation's start; the waterfall is Resource Timing's entries of the same load.

``Chromium.start(spawn, ...)`` starts the browser with any spawner (``EmulatedLink.spawn``
or ``asyncio.create_subprocess_exec``); ``load(url)`` is one page load. A revisit is a
second ``load`` in the same browser, whose HTTP cache then holds the first visit's
objects.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wwanlab.bench.programs import Spawner
from wwanlab.core.errors import UsageError

CHROMIUM = "/usr/bin/chromium"
LOAD_TIMEOUT = 300.0  # s: a page over a busy GPRS cell can take minutes

_TIMINGS_JS = """JSON.stringify({
  navigation: performance.getEntriesByType('navigation').map(e => e.toJSON()),
  resources: performance.getEntriesByType('resource').map(e => ({
    name: e.name, startTime: e.startTime, responseEnd: e.responseEnd,
    transferSize: e.transferSize, encodedBodySize: e.encodedBodySize}))
})"""


def chromium_path() -> str:
    """Debian's Chromium, or a ``UsageError`` saying how to install it."""
    path = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if path is None:
        raise UsageError("chromium is not installed (apt-get install chromium)")
    return path


def command(profile: Path, *, proxy: str | None = None) -> list[str]:
    """A headless Chromium's command line, its profile (HTTP cache included) in
    ``profile``, through ``proxy`` if given, driven on descriptors 3 and 4."""
    argv = [
        chromium_path(),
        "--headless=new",
        "--no-sandbox",  # it runs as root inside a namespace the bench made
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",  # no update checks or safe browsing on the link
        "--disable-component-update",
        "--disable-sync",
        "--disable-features=OptimizationHints,MediaRouter,Translate",
        "--remote-debugging-pipe",
        f"--user-data-dir={profile}",
    ]
    if proxy is not None:
        argv.append(f"--proxy-server={proxy}")
    return [*argv, "about:blank"]


@dataclass
class PageLoad:
    """One page load as the browser timed it (milliseconds from the navigation's start)."""

    url: str
    plt_ms: float
    navigation: dict[str, Any]
    resources: list[dict[str, Any]] = field(default_factory=list)

    @property
    def transferred(self) -> int:
        """Octets the browser received for the page and its objects (headers included)."""
        total = int(self.navigation.get("transferSize", 0))
        return total + sum(int(r.get("transferSize", 0)) for r in self.resources)


class Browser:
    """A running Chromium's one tab, driven over CDP on pipes."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        reader: asyncio.StreamReader,
        writer: asyncio.WriteTransport,
    ) -> None:
        self.process = process
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: list[dict[str, Any]] = []
        self._bodies: dict[str, bytes] = {}
        self._replies: dict[int, dict[str, Any]] = {}
        self._session = ""

    @classmethod
    async def start(cls, spawn: Spawner, argv: Sequence[str]) -> Browser:
        """Start ``argv`` (``command(...)``) with ``spawn``, its CDP on descriptors 3/4."""
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        shell = f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        process = await spawn(  # bash: dash takes no descriptor above 9
            ["bash", "-c", shell, "bash", *argv],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(from_browser_r, "rb", 0)
        )
        writer, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(to_browser_w, "wb", 0)
        )
        browser = cls(process, reader, writer)
        targets = await browser.call("Target.getTargets")
        page = next(t for t in targets["targetInfos"] if t["type"] == "page")
        attached = await browser.call(
            "Target.attachToTarget", targetId=page["targetId"], flatten=True
        )
        browser._session = attached["sessionId"]
        await browser.call("Page.enable")
        return browser

    async def _receive(self) -> dict[str, Any]:
        data = await self._reader.readuntil(b"\0")
        return dict(json.loads(data[:-1]))

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One CDP command's result. Events that arrive meanwhile are kept in order, and
        a paused response is let through at once (``Page.navigate`` answers only once
        its paused response goes on); letting it through calls in turn, so replies are
        kept by id until their caller looks."""
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if self._session and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self._session
        self._writer.write(json.dumps(message).encode() + b"\0")
        while ident not in self._replies:
            received = await self._receive()
            if "id" in received:
                self._replies[received["id"]] = received
            elif received.get("method") == "Fetch.requestPaused":
                await self._let_through(received["params"])
            elif "method" in received:
                self._pending.append(received)
        reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return dict(reply.get("result", {}))

    async def _event(self, method: str) -> dict[str, Any]:
        """The next event ``method``, letting paused responses through meanwhile."""
        while True:
            message = self._pending.pop(0) if self._pending else await self._receive()
            if message.get("method") == method:
                return message
            if message.get("method") == "Fetch.requestPaused":
                await self._let_through(message["params"])

    async def load(self, url: str, timeout: float = LOAD_TIMEOUT) -> PageLoad:
        """Navigate to ``url``, wait for its load event, and read its timings."""
        self._pending.clear()
        await self.call("Page.navigate", url=url)
        await asyncio.wait_for(self._event("Page.loadEventFired"), timeout)
        for _ in range(100):  # loadEventEnd is set once the load handlers returned
            result = await self.call(
                "Runtime.evaluate", expression=_TIMINGS_JS, returnByValue=True
            )
            timings = json.loads(result["result"]["value"])
            (navigation,) = timings["navigation"]
            if navigation["loadEventEnd"] > 0:
                break
            await asyncio.sleep(0.01)
        return PageLoad(url, float(navigation["loadEventEnd"]), navigation, timings["resources"])

    async def record_bodies(self) -> None:
        """From now on, keep the body of every 200 response as the browser receives it
        (``bodies``): each response is paused at the response stage (the Fetch domain),
        its body read, and let through. It slows the load: for checking, not timing."""
        await self.call("Fetch.enable", patterns=[{"urlPattern": "*", "requestStage": "Response"}])

    async def _let_through(self, paused: dict[str, Any]) -> None:
        if paused.get("responseStatusCode") == 200:
            got = await self.call("Fetch.getResponseBody", requestId=paused["requestId"])
            body = got["body"]
            data = base64.b64decode(body) if got["base64Encoded"] else body.encode()
            self._bodies[paused["request"]["url"]] = data
        await self.call("Fetch.continueRequest", requestId=paused["requestId"])

    def bodies(self) -> dict[str, bytes]:
        """URL -> the body each 200 response delivered since ``record_bodies``."""
        return dict(self._bodies)

    async def close(self) -> None:
        with contextlib.suppress(
            RuntimeError, TimeoutError, asyncio.IncompleteReadError, ConnectionError
        ):
            await asyncio.wait_for(self.call("Browser.close"), 5)
        self._writer.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
