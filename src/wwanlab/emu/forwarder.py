"""PASS-THROUGH forwarder: copies packets between the two TUN devices, no link model.

This is a stand-in with the link-model forwarder's signature, kept only so the
namespace, routing, NAT and cleanup can be tested end to end. The real forwarder,
which runs every packet through the ``Direction`` pipelines, writes pcaps and the
per-packet log, replaces this file; until then ``downlink``, ``uplink``, the RNGs,
``pcap_prefix`` and ``log`` are accepted and not used.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path
from typing import Any

from wwanlab.link.base import Direction

MAX_PACKET = 65535  # the largest IPv4 datagram


class Forwarder:
    """Uplink: ``inner_fd`` → ``outer_fd``; downlink: ``outer_fd`` → ``inner_fd``."""

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
    ) -> None:
        self._inner = inner_fd
        self._outer = outer_fd
        self._counts = {d: {"packets": 0, "bytes": 0, "write_errors": 0} for d in ("down", "up")}
        self._failed: asyncio.Future[None] | None = None

    async def run(self) -> None:
        """Forward until cancelled; a device that cannot be read any more (deleted under
        us) ends it with that error."""
        loop = asyncio.get_running_loop()
        self._failed = loop.create_future()
        loop.add_reader(self._inner, self._pump, self._inner, self._outer, "up")
        loop.add_reader(self._outer, self._pump, self._outer, self._inner, "down")
        try:
            await self._failed
        finally:
            loop.remove_reader(self._inner)
            loop.remove_reader(self._outer)

    def _pump(self, src: int, dst: int, direction: str) -> None:
        counts = self._counts[direction]
        while True:
            try:
                packet = os.read(src, MAX_PACKET)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if self._failed is not None and not self._failed.done():
                    self._failed.set_exception(exc)
                return
            try:
                os.write(dst, packet)
            except OSError:
                counts["write_errors"] += 1
                continue
            counts["packets"] += 1
            counts["bytes"] += len(packet)

    def summary(self) -> dict[str, Any]:
        return {"forwarder": "pass-through", **{d: dict(c) for d, c in self._counts.items()}}
