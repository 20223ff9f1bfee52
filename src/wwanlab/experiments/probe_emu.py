"""The link probe of ``experiments.probe``, run through the real-time forwarder.

An experiment on the emulator, so it lives with the experiments (above ``wwanlab.emu``,
which knows nothing of them).

The simulator's probe endpoints (``ProbeSender``, ``ProbeReceiver``) are driven on the
wall clock: their datagrams become real IPv4/UDP packets (``sim.ipv4``) written into
one end of a datagram socket pair whose other end is the forwarder's descriptor, the
"server" on the outer side and the "phone" on the inner one, both directions at once.
The forwarder's directions draw from the same named random streams as the simulator's
link for the same seed, so with the same schedule both answer the same verdicts and
delays for each packet, and the probe's numbers differ from the simulator's only by
the emulator's timing. That difference is what ``probe_emulated`` measures.

Times: a probe's departure is taken from the wall clock just before its write, and
its arrival from the kernel's receive timestamp (``SO_TIMESTAMPNS``), so neither end's
event loop latency is charged to the link.
"""

import asyncio
import contextlib
import dataclasses
import random
import socket
import struct
import time
from pathlib import Path
from typing import Any

from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.core.rng import RngStreams
from wwanlab.emu.forwarder import Forwarder
from wwanlab.experiments.probe import (
    DISCARD_PORT,
    PACED_SIZES,
    PAYLOAD,
    PHONE_ADDRESS,
    PROBE_PORT,
    SERVER_ADDRESS,
    LinkUnderTest,
    Probe,
    ProbeReceiver,
    ProbeResult,
    ProbeSender,
    analyse_probes,
    plan_probes,
)
from wwanlab.link.presets import DIRECTIONS, get_preset
from wwanlab.sim.ipv4 import PROTO_UDP, PacketError, build_ipv4, build_udp, parse_ipv4, parse_udp

SO_TIMESTAMPNS = 35  # Linux asm-generic/socket.h (SO_TIMESTAMPNS_OLD); Python lacks it
SO_SNDBUFFORCE = 32  # Linux asm-generic/socket.h: SO_SNDBUF beyond wmem_max, for root
WRITE_BUFFER = 16 * 1024 * 1024  # octets: some seconds of the fastest preset's packets
_TIMESPEC = struct.Struct("@qq")  # struct timespec: tv_sec, tv_nsec (64-bit Linux)
DRAIN_POLL = 0.02  # s between checks that the forwarder has nothing left in flight
ENDS = {"down": (SERVER_ADDRESS, PHONE_ADDRESS), "up": (PHONE_ADDRESS, SERVER_ADDRESS)}


def link_streams(seed: int, link_name: str) -> dict[str, random.Random]:
    """The random streams the simulator's probe gives its link's two channels."""
    streams = RngStreams(seed)
    return {
        "down": streams.stream("link", link_name, "server>phone"),
        "up": streams.stream("link", link_name, "phone>server"),
    }


def probe_emulated(
    link: LinkUnderTest | str,
    *,
    seed: int = 1,
    count: int,
    train: int | None = None,
    gap: float | None = None,
    pcap_prefix: Path | None = None,
    log: Path | None = None,
) -> tuple[ProbeResult, dict[str, Any]]:
    """Probe ``link`` through a ``Forwarder`` on socket pairs; the probe's result and
    the forwarder's summary. ``count``, ``train``, ``gap`` as ``experiments.probe``."""
    if isinstance(link, str):
        link = LinkUnderTest(get_preset(link))
    if max(PACED_SIZES) > link.preset.mtu:
        raise UsageError(
            f"preset {link.preset.name!r} has MTU {link.preset.mtu}, below the probe's sizes"
        )
    plans = {d: plan_probes(link, d, count, train=train, gap=gap) for d in DIRECTIONS}
    return asyncio.run(_probe(link, seed, count, plans, pcap_prefix, log))


async def _probe(
    link: LinkUnderTest,
    seed: int,
    count: int,
    plans: dict[str, list[Probe]],
    pcap_prefix: Path | None,
    log: Path | None,
) -> tuple[ProbeResult, dict[str, Any]]:
    phone, inner = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    server, outer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with phone, inner, server, outer:
        for sock in (inner, outer):
            _deepen(sock)
        rngs = link_streams(seed, link.preset.name)
        forwarder = Forwarder(
            inner.fileno(),
            outer.fileno(),
            link.build("down"),
            link.build("up"),
            rngs["down"],
            rngs["up"],
            pcap_prefix=pcap_prefix,
            log=log,
        )
        forwarding = asyncio.create_task(forwarder.run())
        await asyncio.sleep(0)  # let the forwarder start its clock first
        # (sending socket, receiving socket) per direction
        socks = {"down": (server, phone), "up": (phone, server)}
        receivers = {d: ProbeReceiver() for d in DIRECTIONS}
        loop = asyncio.get_running_loop()
        t0_loop, t0_wall = loop.time(), time.time()
        for sock in (phone, server):
            sock.setblocking(False)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        for d in DIRECTIONS:
            loop.add_reader(socks[d][1], _receive, socks[d][1], receivers[d], t0_wall)
        try:
            sent = await asyncio.gather(
                *(_send(socks[d][0], d, plans[d], t0_loop, t0_wall) for d in DIRECTIONS)
            )
            # Until the forwarder has read every probe and written or dropped each.
            while not forwarding.done() and any(
                forwarder.summary()[d]["packets"] < len(plans[d])
                or forwarder.summary()[d]["in_flight"]
                for d in DIRECTIONS
            ):
                await asyncio.sleep(DRAIN_POLL)
            if forwarding.done():
                await forwarding  # it stopped on its own: raise why
            await asyncio.sleep(DRAIN_POLL)  # the last writes reach the receivers
        finally:
            for d in DIRECTIONS:
                loop.remove_reader(socks[d][1])
            forwarding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await forwarding
    results = {}
    for d, departures in zip(DIRECTIONS, sent, strict=True):
        actual = [dataclasses.replace(p, at=departures[(p.train, p.seq)]) for p in plans[d]]
        results[d] = analyse_probes(link, d, actual, receivers[d])
    return ProbeResult(link.preset.name, seed, count, results), forwarder.summary()


async def _send(
    sock: socket.socket, direction: str, plan: list[Probe], t0_loop: float, t0_wall: float
) -> dict[tuple[int, int], float]:
    """Drive a ``ProbeSender`` on the wall clock; each probe's actual departure time."""
    loop = asyncio.get_running_loop()
    src, dst = ENDS[direction]
    sender = ProbeSender((dst, DISCARD_PORT), plan)
    departures: dict[tuple[int, int], float] = {}
    while (at := sender.get_timer()) is not None:
        await asyncio.sleep(at - (loop.time() - t0_loop))
        now = loop.time() - t0_loop
        sender.handle_timer(now)
        for payload, (host, port) in sender.datagrams_to_send(now):
            udp = build_udp(src, host, PROBE_PORT, port, payload)
            packet = build_ipv4(src, host, PROTO_UDP, udp)
            departures[PAYLOAD.unpack_from(payload)] = time.time() - t0_wall
            await loop.sock_sendall(sock, packet)
    return departures


def _deepen(sock: socket.socket) -> None:
    """Let the forwarder's writes queue ``WRITE_BUFFER`` octets unread, as a TUN device
    never makes its writer wait: a busy test process then delays its reads, not the
    link's departures (the kernel stamps each datagram as it is written)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, WRITE_BUFFER)
    except PermissionError:  # not root: up to net.core.wmem_max
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WRITE_BUFFER)


def _receive(sock: socket.socket, receiver: ProbeReceiver, t0_wall: float) -> None:
    """Read every waiting packet; hand UDP payloads to ``receiver`` at their kernel
    receive time."""
    while True:
        try:
            packet, ancillary, _, _ = sock.recvmsg(65535, socket.CMSG_SPACE(_TIMESPEC.size))
        except BlockingIOError:
            return
        stamp = [data for level, kind, data in ancillary if kind == SO_TIMESTAMPNS]
        if not stamp or len(stamp[0]) < _TIMESPEC.size:
            receiver.malformed += 1
            continue
        seconds, nanos = _TIMESPEC.unpack_from(stamp[0])
        try:
            header, datagram = parse_ipv4(packet)
            udp, payload = parse_udp(header.src, header.dst, datagram)
        except PacketError:
            receiver.malformed += 1
            continue
        addr: Address = (header.src, udp.src_port)
        receiver.receive_datagram(payload, addr, seconds + nanos / 1e9 - t0_wall)
