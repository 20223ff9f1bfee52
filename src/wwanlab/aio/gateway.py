"""The WAP gateway on asyncio: two UDP drivers, an HTTP client, a fair fetch scheduler.

``Gateway`` binds the WSP servers of ``wwanlab.wap.wsp`` to UDP sockets with
``UdpDriver``: ``ConnectionlessServer`` on port 9200 and ``WspServer`` (sessions over
WTP) on port 9201, the latter with the gateway's ``GatewayLimits`` and, on request,
wrapped in ``FakewapTolerance``. Each ``MethodInvoke`` they report is translated to
HTTP (``wap.gateway.translate``), queued per client host in a ``FairQueue`` and fetched
over keep-alive connections (``OriginClient``) when one of ``max_fetches`` slots is
free; the response goes back through ``respond`` and the driver's ``pump``.

Origins are checked against the ``OriginPolicy`` by the client: an IP literal in the
URL before anything is sent, and every address a host name resolves to, so a name that
points at 127.0.0.1 is refused as surely as the literal. Redirects are not followed:
the phone gets the 3xx and its next request passes the same checks. A refused origin is
answered with WSP status 403.

Logs are one line per event in ``key=value`` form on the ``wwanlab.gateway`` logger;
dropped connectionless datagrams are logged at most ``DROP_LOG_PER_SECOND`` times a
second, with a count of the suppressed ones. Every request answered gets one access line
at info on ``wwanlab.gateway.access`` (client, method, URL, status, bytes, time), as
Kannel's access log has; a refused origin is logged at info with the reason. With
``status`` set, ``StatusServer`` serves counters and sessions as JSON over HTTP.
"""

import asyncio
import contextlib
import logging
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from wwanlab import __version__
from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.wap.gateway.fair import FairQueue
from wwanlab.wap.gateway.limits import GatewayLimits
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.gateway.quirks import FakewapTolerance
from wwanlab.wap.gateway.translate import HttpRequest, TranslateError, to_http, to_reply
from wwanlab.wap.wsp.common import name_content_type, text_reply
from wwanlab.wap.wsp.connectionless import ConnectionlessServer
from wwanlab.wap.wsp.constants import (
    CONNECTION_ORIENTED_PORT,
    CONNECTIONLESS_PORT,
    abort_reason_name,
)
from wwanlab.wap.wsp.events import (
    DatagramDropped,
    Headers,
    MethodAborted,
    MethodInvoke,
    ReplyConfirmed,
    RequestRefused,
    SessionConnected,
    SessionDisconnected,
)
from wwanlab.wap.wsp.pdu import Reply
from wwanlab.wap.wsp.session import WspServer
from wwanlab.wap.wsp.status import wsp_to_http
from wwanlab.wap.wtp.timers import WtpConfig
from wwanlab.web.http1 import BodyTooLarge, HttpError

from .origin_client import OriginClient, OriginRefused, OriginUnreachable
from .status import StatusServer
from .udp import UdpDriver

log = logging.getLogger("wwanlab.gateway")
access_log = logging.getLogger("wwanlab.gateway.access")

DROP_LOG_PER_SECOND = 5
DROP_LOG_OCTETS = 64  # of a dropped datagram, in hex in its log line: a Get's whole header
FETCH_TIMEOUT = 20.0  # s: under WTP's AEC_MAX * A = 24 s, so the phone hears a 504
STATUS_MAX_SESSIONS = 1000  # sessions listed by the status endpoint; the count is exact


def logfmt(event: str, **fields: object) -> str:
    """``event=NAME key=value ...``, quoting values with spaces (one line per event)."""
    parts = [f"event={event}"]
    for key, value in fields.items():
        text = str(value)
        if not text or any(c in text for c in ' "=\n'):
            text = '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
        parts.append(f"{key}={text}")
    return " ".join(parts)


class BindError(OSError):
    """A socket of the gateway could not be bound; says which one and why."""

    def __init__(self, what: str, address: Address, exc: OSError) -> None:
        if exc.errno is None and isinstance(exc.__cause__, OSError):
            exc = exc.__cause__  # uvloop wraps the system's error in one of its own
        reason = exc.strerror or str(exc)
        reason = reason[:1].lower() + reason[1:]
        super().__init__(exc.errno, f"cannot bind {what} port {_fmt(address)}: {reason}")
        self.address = address

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class GatewayConfig:
    host: str = "127.0.0.1"
    port_cl: int = CONNECTIONLESS_PORT
    port_co: int = CONNECTION_ORIENTED_PORT
    policy: OriginPolicy = field(default_factory=OriginPolicy)
    limits: GatewayLimits = field(default_factory=GatewayLimits)
    wtp: WtpConfig = field(default_factory=WtpConfig)
    max_fetches: int = 128  # origin requests in flight at once
    per_client_queue: int = 256  # requests one client host may have waiting
    fetch_timeout: float = FETCH_TIMEOUT
    seed: int | None = None  # WTP TID generator; None: from the OS
    fakewap_quirks: bool = False  # read fakewap's Acks as it means them (wap.gateway.quirks)
    status: Address | None = None  # where the JSON status endpoint listens; None: nowhere


@dataclass
class _Job:
    server: str  # "co" or "cl"
    handle: int  # the MethodInvoke's
    client: Address
    request: HttpRequest
    session: int | None  # None for connectionless
    started: float  # time.perf_counter() when the method arrived
    task: asyncio.Task[None] | None = None


class Gateway:
    """WSP <-> HTTP gateway; ``await Gateway.start(config)``, then ``await close()``."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        rng = random.Random(config.seed)
        self.co = WspServer(rng, config.limits.wsp_server_config(), config.wtp)
        self.cl = ConnectionlessServer(config.limits.max_connectionless_pending)
        self.quirks = FakewapTolerance(self.co) if config.fakewap_quirks else None
        self.stats: Counter[str] = Counter()
        self._queue: FairQueue[str, _Job] = FairQueue(config.per_client_queue)
        self._jobs: dict[tuple[str, int], _Job] = {}
        self._running = 0
        self._drivers: dict[str, UdpDriver] = {}
        self._http = OriginClient(config.policy, config.limits.max_message_size)
        self._drop_window = 0.0
        self._drop_logged = 0
        self._drop_suppressed = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._status: StatusServer | None = None
        self._started = time.monotonic()

    @classmethod
    async def start(cls, config: GatewayConfig) -> "Gateway":
        gateway = cls(config)
        co: Endpoint = gateway.quirks or gateway.co
        try:
            for kind, what, endpoint, handler, port in (
                ("co", "connection-oriented", co, gateway._on_co_event, config.port_co),
                ("cl", "connectionless", gateway.cl, gateway._on_cl_event, config.port_cl),
            ):
                address = (config.host, port)
                try:
                    gateway._drivers[kind] = await UdpDriver.bind(endpoint, handler, address)
                except OSError as exc:
                    raise BindError(f"{what} UDP", address, exc) from None
            if config.status is not None:
                try:
                    gateway._status = await StatusServer.start(gateway.status, config.status)
                except OSError as exc:
                    raise BindError("status TCP", config.status, exc) from None
        except BaseException:
            await gateway._release(0.0)
            raise
        listening = {
            "connectionless": _fmt(gateway.address("cl")),
            "connection_oriented": _fmt(gateway.address("co")),
        }
        if gateway._status is not None:
            listening["status"] = _fmt(gateway._status.address)
        log.info(logfmt("listening", **listening))
        return gateway

    def address(self, kind: str) -> Address:
        """The bound address of the ``"co"`` or ``"cl"`` socket."""
        return self._drivers[kind].local_address

    @property
    def status_address(self) -> Address | None:
        """Where the status endpoint listens, if it does."""
        return self._status.address if self._status is not None else None

    async def close(self, grace: float = 2.0) -> None:
        """Let fetches in flight finish for up to ``grace`` s, then abort the rest."""
        await self._release(grace)
        log.info(logfmt("stopped", **{k: v for k, v in sorted(self.stats.items())}))

    async def _release(self, grace: float) -> None:
        if self._jobs:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), grace)
        for job in list(self._jobs.values()):
            if job.task is not None:
                job.task.cancel()
        if "co" in self._drivers:
            self.co.close(self._drivers["co"].now())
            self._drivers["co"].pump()
        for driver in self._drivers.values():
            driver.close()
        self._drivers.clear()
        await self._http.close()
        if self._status is not None:
            await self._status.close()
            self._status = None

    # events from the two servers

    def _on_co_event(self, event: Event) -> None:
        self._on_event("co", event)

    def _on_cl_event(self, event: Event) -> None:
        self._on_event("cl", event)

    def _on_event(self, server: str, event: Event) -> None:
        if isinstance(event, MethodInvoke):
            self._admit(server, event)
        elif isinstance(event, ReplyConfirmed):
            self.stats["completed"] += 1
        elif isinstance(event, MethodAborted):
            self.stats["aborted"] += 1
            self._cancel(server, event.request)
            if log.isEnabledFor(logging.DEBUG):
                reason = abort_reason_name(event.reason)
                log.debug(logfmt("aborted", id=event.request, reason=reason))
        elif isinstance(event, DatagramDropped):
            self.stats["dropped"] += 1
            self._log_drop(event)
        elif isinstance(event, RequestRefused):
            self.stats["refused"] += 1
            log.info(
                logfmt(
                    "refused",
                    client=_fmt(event.peer),
                    reason=abort_reason_name(event.reason),
                    detail=event.detail,
                )
            )
        elif isinstance(event, SessionConnected):
            self.stats["sessions"] += 1
            if log.isEnabledFor(logging.DEBUG):
                log.debug(logfmt("session_opened", client=_fmt(event.peer), id=event.session))
        elif isinstance(event, SessionDisconnected) and log.isEnabledFor(logging.DEBUG):
            reason = abort_reason_name(event.reason)
            log.debug(logfmt("session_closed", id=event.session, reason=reason))

    def _admit(self, server: str, event: MethodInvoke) -> None:
        self.stats["requests"] += 1
        started = time.perf_counter()
        try:
            request = to_http(event)
        except TranslateError as exc:
            reply = text_reply(exc.status, str(exc))
            self._respond(server, event.handle, event.session, reply)
            self._log_access(event.peer, event.method, event.uri, event.headers, reply, started)
            return
        job = _Job(server, event.handle, event.peer, request, event.session, started)
        if not self._queue.push(event.peer[0], job):
            self.stats["busy"] += 1
            reply = text_reply(503, "client queue full")
            self._respond(server, event.handle, event.session, reply)
            self._log_access(event.peer, event.method, event.uri, event.headers, reply, started)
            return
        self._jobs[(server, event.handle)] = job
        self._idle.clear()
        self._dispatch()

    def _dispatch(self) -> None:
        while self._running < self.config.max_fetches and self._queue:
            job = self._queue.pop()
            self._running += 1
            job.task = asyncio.create_task(self._serve(job))

    def _cancel(self, server: str, handle: int) -> None:
        job = self._jobs.pop((server, handle), None)
        if job is None:
            return
        if job.task is None:
            self._queue.remove(job.client[0], job)
        else:
            job.task.cancel()
        if not self._jobs:
            self._idle.set()

    async def _serve(self, job: _Job) -> None:
        try:
            reply = await self._fetch(job)
        finally:
            self._running -= 1
            self._dispatch()
        if self._jobs.pop((job.server, job.handle), None) is None:
            return  # cancelled meanwhile
        if not self._jobs:
            self._idle.set()
        self._respond(job.server, job.handle, job.session, reply)
        request = job.request
        self._log_access(
            job.client, request.method, request.url, request.headers, reply, job.started
        )

    def _log_access(
        self,
        client: Address,
        method: str,
        url: str,
        headers: Headers,
        reply: Reply,
        started: float,
    ) -> None:
        """Count the answer by status class; one access line at info with what Kannel's
        wapbox access log has (client, method, URL, content type, size, status, the
        phone's User-Agent) and the time taken."""
        status = wsp_to_http(reply.status)
        self.stats[f"status_{status // 100}xx"] += 1
        self.stats["body_bytes"] += len(reply.data)
        if access_log.isEnabledFor(logging.INFO):
            access_log.info(
                logfmt(
                    "access",
                    client=_fmt(client),
                    method=method,
                    url=url,
                    status=status,
                    type=name_content_type(reply.content_type),
                    bytes=len(reply.data),
                    agent=next((v for k, v in headers if k.lower() == "user-agent"), "-"),
                    ms=round((time.perf_counter() - started) * 1000, 2),
                )
            )

    def _respond(self, server: str, handle: int, session: int | None, reply: Reply) -> None:
        driver = self._drivers.get(server)
        if driver is None:
            return
        if server == "cl":
            if self.cl.respond(handle, reply, driver.now()):
                self.stats["completed"] += 1
        else:
            held = self.co.sessions.get(session) if session is not None else None
            limit = held.capabilities.client_sdu_size if held is not None else 0
            size = _size_bound(reply)
            if limit and size > limit:  # else WSP would abort the method (MRUEXCEEDED)
                reply = text_reply(502, f"reply of about {size} octets exceeds {limit}")
            self.co.respond(handle, reply, driver.now())
        driver.pump()

    async def _fetch(self, job: _Job) -> Reply:
        """The origin's answer as a Reply; every failure becomes an HTTP error status."""
        request = job.request
        try:
            async with asyncio.timeout(self.config.fetch_timeout):
                response = await self._http.fetch(
                    request.method, request.url, request.headers, request.body
                )
        except OriginRefused as exc:
            return self._forbidden(job, str(exc))
        except OriginUnreachable as exc:
            return text_reply(502, str(exc))
        except TimeoutError:
            return text_reply(504, "origin timed out")
        except BodyTooLarge:
            return text_reply(502, "origin reply too large")
        except (HttpError, ValueError, OSError) as exc:
            return text_reply(502, f"origin error: {exc}")
        return to_reply(response.status, list(response.headers), response.body, request.accept)

    def _forbidden(self, job: _Job, reason: str) -> Reply:
        """A 403 saying ``reason``, which the log says too (the policy is the operator's)."""
        self.stats["forbidden"] += 1
        log.info(logfmt("forbidden", client=_fmt(job.client), url=job.request.url, reason=reason))
        return text_reply(403, f"{reason} (gateway origin policy)")

    def _log_drop(self, event: DatagramDropped) -> None:
        now = time.monotonic()
        if now - self._drop_window >= 1.0:
            if self._drop_suppressed:
                log.warning(logfmt("dropped_suppressed", count=self._drop_suppressed))
            self._drop_window, self._drop_logged, self._drop_suppressed = now, 0, 0
        if self._drop_logged < DROP_LOG_PER_SECOND:
            self._drop_logged += 1
            head = event.data[:DROP_LOG_OCTETS].hex()
            log.warning(
                logfmt(
                    "dropped",
                    client=_fmt(event.peer),
                    detail=event.detail,
                    octets=len(event.data),
                    head=head,
                )
            )
        else:
            self._drop_suppressed += 1

    def snapshot(self) -> dict[str, Any]:
        """Counters and table sizes, for logs, tests and benchmarks."""
        return {
            **self.stats,
            "sessions_open": len(self.co.sessions),
            "wtp_transactions": self.co.wtp.pending(),
            **(
                {
                    "retargeted_acks": self.quirks.retargeted_acks,
                    "dropped_nacks": self.quirks.dropped_nacks,
                }
                if self.quirks
                else {}
            ),
            "cl_pending": self.cl.pending(),
            "jobs": len(self._jobs),
            "queued": len(self._queue),
        }

    def status(self) -> dict[str, Any]:
        """What the status endpoint serves: counters, table sizes and sessions."""
        snapshot = self.snapshot()
        counters = {k: snapshot.pop(k) for k in sorted(self.stats)}
        driver = self._drivers.get("co")
        now = driver.now() if driver is not None else 0.0
        held = sorted(self.co.sessions.values(), key=lambda s: s.session_id)
        return {
            "status": "running" if self._drivers else "stopped",
            "version": __version__,
            "uptime_s": round(time.monotonic() - self._started, 3),
            "listening": {kind: _fmt(d.local_address) for kind, d in self._drivers.items()},
            "counters": counters,
            "tables": snapshot,
            "sessions": [
                {
                    "id": s.session_id,
                    "client": _fmt(s.peer),
                    "state": s.state.name,
                    "methods": len(s.methods),
                    "idle_s": round(now - s.last_active, 3),
                    "client_sdu_size": s.capabilities.client_sdu_size,
                }
                for s in held[:STATUS_MAX_SESSIONS]
            ],
            "sessions_listed": min(len(held), STATUS_MAX_SESSIONS),
        }


def _size_bound(reply: Reply) -> int:
    """At least the octets ``reply`` encodes to: PDU type, status, a uintvar of at most
    5 octets (WSP 8.1.2), content type, headers and data (WSP 8.2.3.3)."""
    return 7 + len(reply.content_type) + len(reply.headers) + len(reply.data)


def _fmt(addr: Address) -> str:
    return f"{addr[0]}:{addr[1]}"


async def serve(config: GatewayConfig, stop: asyncio.Event, grace: float = 2.0) -> Gateway:
    """Run a gateway until ``stop`` is set, then shut it down gracefully."""
    gateway = await Gateway.start(config)
    try:
        await stop.wait()
    finally:
        await gateway.close(grace)
    return gateway
