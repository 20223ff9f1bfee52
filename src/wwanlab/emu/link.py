"""``EmulatedLink``: a network namespace whose only way out crosses a link model.

::

      caller's namespace                          the link's namespace
    ┌───────────────────────┐                  ┌──────────────────────┐
    │ servers, WWANLAB_HOST │  wwlNh      wwlNi │ the inner program    │
    │ 100.64.x.1 ◄──────────┼── Forwarder ──────┼► 100.64.x.2          │
    │ nft masquerade ─► eth0│  downlink/uplink  │ default via .1       │
    └───────────────────────┘                  └──────────────────────┘

Like Mahimahi's shells, with two TUN devices and a user-space forwarder between them:
packets the inner program sends come out of ``wwlNi``'s descriptor, cross the uplink
model and are written to ``wwlNh``; the caller's kernel then delivers them locally
(to ``host_address``) or routes and masquerades them onward. The downlink is the way
back. Numbers and names come from a slot (``instances``); removal is left to a guardian
process (``guardian``) so that it also happens when wwanlab is killed.

The link models are the simulator's: each direction is built exactly as ``wwanlab
probe`` builds it (the preset's direction, its loss replaced by a ``loss`` override),
from one preset or from ``downlink``/``uplink`` presets.

Example (as root)::

    async with EmulatedLink("gprs-one-user") as link:
        proc = await link.spawn(["curl", "-o", "f", f"http://{link.host_address}:8000/f"])
        await proc.wait()
        print(link.summary())
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from wwanlab.core.errors import UsageError
from wwanlab.core.rng import RngStreams
from wwanlab.emu import instances, nat
from wwanlab.emu.forwarder import Forwarder
from wwanlab.emu.netns import Namespace, check_can_emulate, disable_ipv6, ip, open_tun
from wwanlab.link.presets import Preset, get_preset
from wwanlab.pep.snoop import SnoopAgent
from wwanlab.pep.split import SplitProxy
from wwanlab.tcp import TcpConfig

T = TypeVar("T")

PROXIES = ("snoop", "split")
"""Proxies (``wwanlab.pep``) that may sit at the link's wired end (``--proxy``)."""

HOST_ENV = "WWANLAB_HOST"  # as Mahimahi's MAHIMAHI_BASE: where the inner program finds the host


class EmulatedLink:
    """``async with EmulatedLink(preset, ...) as link``: the namespace, its addresses,
    a way to run processes and code inside, and the forwarder's summary."""

    def __init__(
        self,
        preset: str = "serial-9k6",
        *,
        downlink: str | None = None,
        uplink: str | None = None,
        loss: float | None = None,
        seed: int = 0,
        pcap_prefix: Path | str | None = None,
        log: Path | str | None = None,
        proxy: str | None = None,
    ) -> None:
        # Everything a user can get wrong is checked here, before anything is made.
        if proxy not in (None, *PROXIES):
            raise UsageError(f"unknown proxy {proxy!r} (known: {', '.join(PROXIES)})")
        self.proxy = proxy
        self.downlink_preset = get_preset(downlink or preset)
        self.uplink_preset = get_preset(uplink or preset)
        self.loss = loss
        self.seed = seed
        self._down = _with_loss(self.downlink_preset, loss).build("down")
        self._up = _with_loss(self.uplink_preset, loss).build("up")
        self.mtu = min(self.downlink_preset.mtu, self.uplink_preset.mtu)
        self.pcap_prefix = None if pcap_prefix is None else Path(pcap_prefix)
        self.log = None if log is None else Path(log)
        if self.pcap_prefix is not None:
            _check_writable_folder(self.pcap_prefix, "--pcap")
        if self.log is not None:
            _check_writable_folder(self.log, "--log")
        self._slot: instances.Slot | None = None
        self._ns: Namespace | None = None
        self._guardian: subprocess.Popen[bytes] | None = None
        self._fds: list[int] = []
        self._forwarder: Forwarder | None = None
        self._task: asyncio.Task[None] | None = None
        self._summary: dict[str, Any] | None = None
        self._proxy: SnoopAgent | SplitProxy | None = None

    # --- what users read -------------------------------------------------------------

    @property
    def netns(self) -> str:
        """A path that names the namespace: ``nsenter --net=PATH`` enters it."""
        return self._live_ns().path

    @property
    def host_address(self) -> str:
        """The caller's side of the link, ``$WWANLAB_HOST`` inside."""
        return self._live_slot().host_address

    @property
    def inner_address(self) -> str:
        """The inner program's address."""
        return self._live_slot().inner_address

    async def spawn(self, argv: Sequence[str], **kwargs: Any) -> asyncio.subprocess.Process:
        """Start ``argv`` inside the namespace with ``WWANLAB_HOST`` in its environment.

        ``kwargs`` go to ``asyncio.create_subprocess_exec``. A missing program exits
        with 127, as in a shell.
        """
        env: Mapping[str, str] = kwargs.pop("env", None) or os.environ
        env = {**env, HOST_ENV: self.host_address}
        return await asyncio.create_subprocess_exec(
            "nsenter", f"--net={self.netns}", "--", *argv, env=env, **kwargs
        )

    async def run_in_namespace(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in a thread inside the namespace: sockets it opens live there and
        stay there when used from the event loop afterwards."""
        return await asyncio.wrap_future(self._live_ns().submit(fn))

    async def guard(self, aw: Awaitable[T]) -> T:
        """Await ``aw``; if the forwarder stops first (the link is then down), cancel
        ``aw`` and raise the forwarder's error."""
        forwarding = self._task
        if forwarding is None:
            raise RuntimeError("the link is not set up: use 'async with EmulatedLink(...)'")
        waiting = asyncio.ensure_future(aw)
        await asyncio.wait({waiting, forwarding}, return_when=asyncio.FIRST_COMPLETED)
        if waiting.done():
            return waiting.result()
        waiting.cancel()
        forwarding.result()  # raises the forwarder's error
        raise RuntimeError("the forwarder stopped")

    def summary(self) -> dict[str, Any]:
        """The link, its addresses and the forwarder's counters (final after exit)."""
        counters = self._summary
        if counters is None and self._forwarder is not None:
            counters = self._forwarder.summary()
        slot = self._slot
        return {
            "downlink": self.downlink_preset.name,
            "uplink": self.uplink_preset.name,
            "loss": self.loss,
            "seed": self.seed,
            "mtu": self.mtu,
            "host_address": None if slot is None else slot.host_address,
            "inner_address": None if slot is None else slot.inner_address,
            "forwarder": counters,
            "proxy": None if self._proxy is None else _proxy_summary(self._proxy),
        }

    # --- set-up and removal ----------------------------------------------------------

    async def __aenter__(self) -> EmulatedLink:
        check_can_emulate()
        try:
            await asyncio.to_thread(self._set_up)
        except BaseException:
            await self._tear_down()
            raise
        assert self._forwarder is not None
        self._task = asyncio.create_task(self._forwarder.run(), name="wwanlab-forwarder")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._tear_down()

    def _set_up(self) -> None:
        with instances.registry_lock():
            nat.sweep()
            instances.sweep_notes()
            slot = self._slot = instances.allocate()
            instances.enable_forwarding()
        ns = self._ns = Namespace()
        slot.record(ns.id)
        self._guardian = subprocess.Popen(
            [sys.executable, "-m", "wwanlab.emu.guardian", str(slot.number), *map(str, ns.id)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            pass_fds=(slot.fd,),
            start_new_session=True,
        )
        outer = open_tun(slot.host_device)
        self._fds.append(outer)
        disable_ipv6(slot.host_device)
        prefix = slot.subnet.prefixlen
        ip(
            batch=f"addr add {slot.host_address}/{prefix} dev {slot.host_device}\n"
            f"link set {slot.host_device} mtu {self.mtu} up\n"
        )
        inner = ns.call(lambda: open_tun(slot.inner_device))
        self._fds.append(inner)
        ns.call(lambda: disable_ipv6(slot.inner_device))
        ip(
            netns=ns.path,
            batch="link set lo up\n"
            f"addr add {slot.inner_address}/{prefix} dev {slot.inner_device}\n"
            f"link set {slot.inner_device} mtu {self.mtu} up\n"
            f"route add default via {slot.host_address} dev {slot.inner_device}\n",
        )
        nat.add_masquerade(slot.table, slot.inner_address, slot.host_device)
        streams = RngStreams(self.seed)
        self._proxy = _make_proxy(self.proxy, slot.inner_address, streams.stream("emu", "pep"))
        self._forwarder = Forwarder(
            inner,
            outer,
            self._down,
            self._up,
            streams.stream("emu", "down"),
            streams.stream("emu", "up"),
            pcap_prefix=self.pcap_prefix,
            log=self.log,
            proxy=self._proxy,
            mobile=None if self._proxy is None else slot.inner_address,
        )

    async def _tear_down(self) -> None:
        """Stop forwarding, drop devices and the namespace, and let the guardian finish
        (it kills what is left inside, deletes the table, restores forwarding)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
            if not task.cancelled():
                task.exception()  # seen: ``guard`` is where a forwarder error is raised
        if self._forwarder is not None:
            self._summary = self._forwarder.summary()
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()
        if self._ns is not None:
            await asyncio.to_thread(self._ns.close)
        if self._guardian is not None:
            assert self._guardian.stdin is not None
            self._guardian.stdin.close()
            await asyncio.to_thread(self._guardian.wait)
            self._guardian = None
        elif self._slot is not None:
            # No guardian was started: nothing but the slot and forwarding to undo.
            with instances.registry_lock():
                instances.restore_forwarding(self._slot.number)
        if self._slot is not None:
            self._slot.release()
        self._ns = None

    def _live_ns(self) -> Namespace:
        if self._ns is None:
            raise RuntimeError("the link is not set up: use 'async with EmulatedLink(...)'")
        return self._ns

    def _live_slot(self) -> instances.Slot:
        if self._slot is None:
            raise RuntimeError("the link is not set up: use 'async with EmulatedLink(...)'")
        return self._slot


def _with_loss(preset: Preset, loss: float | None) -> Preset:
    """The preset as ``--loss`` overrides it (the probe's ``LinkUnderTest`` rule)."""
    return preset if loss is None else preset.with_loss(loss)


def _check_writable_folder(path: Path, option: str) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{option}: folder {str(folder)!r} does not exist")
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        raise UsageError(f"{option}: cannot write in {str(folder)!r}: {exc.strerror}") from None


def _make_proxy(
    name: str | None, mobile: str, rng: random.Random
) -> SnoopAgent | SplitProxy | None:
    """The proxy ``name`` for the inner program's address, as paper 002 places it:
    between the wired network (the host) and the radio (the link)."""
    if name == "snoop":
        return SnoopAgent({mobile})
    if name == "split":
        # the program inside opens connections too (a browser, curl): split those as well
        return SplitProxy({mobile}, TcpConfig(), TcpConfig(), rng, mobile_opens=True)
    return None


def _proxy_summary(proxy: SnoopAgent | SplitProxy) -> dict[str, Any]:
    if isinstance(proxy, SnoopAgent):
        return {"kind": "snoop", **dataclasses.asdict(proxy.stats)}
    stats = proxy.wireless_stats()
    return {
        "kind": "split",
        "connections": len(proxy.relays),
        "segments_sent": sum(s.segments_sent for s in stats),
        "retransmissions": sum(s.retransmissions for s in stats),
        "timer_retransmissions": sum(s.timer_retransmissions for s in stats),
    }
