"""WSP/WTP: ``wwanlab get`` (connection-oriented, SAR) through ``wwanlab gateway``.

The gateway runs outside and fetches the file over HTTP from a ``FileServer`` on the
host's loopback; the client inside runs ``wwanlab get --json``. Two timer profiles:

- ``wtp-paper``: the retry interval R of paper 000's stack, WTP Appendix A as Kannel
  1.4.5 sets it for IP bearers (``L_R_WITH_USER_ACK`` = 7 s), at both ends;
- ``wtp-tuned``: R derived from the link, at both ends. WTP 9.4.1 leaves the timer
  values to the bearer ("The values ... depend on the bearer"), so this is a
  configuration, not a protocol change. R is started when a group leaves the sender
  and must cover the group's serialization, the Ack's and the round trip:
  ``R = RETRY_MARGIN * (group * t(full packet, down) + t(Ack, up) + 2 * delay p95)``,
  never below ``TUNED_R_MIN``, the line time being serialization on rate stages and the
  mean service time of the GPRS radio (paper 002), and the delay p95 the preset's
  (which for GPRS includes the radio's service time again: a conservative R). On
  serial-9k6 that is 6.8 s (the paper's 7 s is already about right).
"""

import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from wwanlab.bench.http import Fetched, FileServer
from wwanlab.bench.programs import running
from wwanlab.bench.registry import Params, Serve, ServeContext, Transport, register
from wwanlab.link.presets import Preset
from wwanlab.link.rate import Rate, ServiceTime
from wwanlab.sim.ipv4 import IPV4_MIN_HEADER, UDP_HEADER
from wwanlab.wap.wtp.timers import L_R_WITH_USER_ACK, SAR_GROUP_LEN, SAR_SEGM_SIZE

SEGMENTED_RESULT_HEADER = 4  # WTP 9.3.2: a Segmented Result PDU's header, with the PSN
ACK_PDU = 3 + 2  # WTP 9.3.3: Ack header, and the PSN TPI of a group's Ack (WTP 9.3.5.4)
RETRY_MARGIN = 1.5  # ours: head room over the expected Ack time for delay jitter
TUNED_R_MIN = 0.5  # s, ours: below this the event loop's and scheduler's jitter matter


def _wwanlab() -> str:
    """The ``wwanlab`` command of the running interpreter's environment."""
    return str(Path(sys.executable).with_name("wwanlab"))


def _line_time(preset: Preset, direction: str, ip_octets: int) -> float:
    """Seconds the link's rate stages are busy with one packet: serialization with
    framing on a ``Rate``, a mean service time on a ``ServiceTime`` (GPRS radio)."""
    busy = 0.0
    for stage in preset.build(direction).stages:
        if isinstance(stage, Rate):
            busy += (ip_octets + stage.overhead_bytes) * stage.bits_per_byte / stage.bps
        elif isinstance(stage, ServiceTime):
            busy += stage.service.mean
    return busy


def tuned_retry_interval(preset: Preset) -> float:
    """The link-derived WTP retry interval R (module docstring)."""
    full = SAR_SEGM_SIZE + SEGMENTED_RESULT_HEADER + IPV4_MIN_HEADER + UDP_HEADER
    ack = ACK_PDU + IPV4_MIN_HEADER + UDP_HEADER
    rtt = sum(float(preset.configured[d]["delay_ms"]["p95"]) for d in ("down", "up")) / 1000
    expected = (
        SAR_GROUP_LEN * _line_time(preset, "down", full) + _line_time(preset, "up", ack) + rtt
    )
    return round(max(TUNED_R_MIN, RETRY_MARGIN * expected), 3)


def _serve(profile: str) -> Serve:
    @asynccontextmanager
    async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
        retry = L_R_WITH_USER_ACK if profile == "paper" else tuned_retry_interval(ctx.preset)
        async with FileServer("127.0.0.1", ctx.files) as origin:
            argv = [
                _wwanlab(), "gateway", "--host", ctx.host, "--port-cl", "0", "--port-co", "0",
                "--allow-origin", "127.0.0.0/8", "--retry-interval", str(retry),
                "--log-level", "info",
            ]  # fmt: skip
            async with running(argv, "listening") as line:
                co = line.split("connection_oriented=")[1].split()[0]
                yield {"gateway": co, "origin": f"127.0.0.1:{origin.port}", "retry": retry}

    return serve


def _argv(params: Params, path: str) -> list[str]:
    url = f"http://{params['origin']}{path}"
    return [
        _wwanlab(), "get", url, "--gateway", params["gateway"], "--json",
        "--retry-interval", str(params["retry"]), "--timeout", "3600",
    ]  # fmt: skip


def read_get_json(obj: Mapping[str, Any]) -> Fetched:
    """``wwanlab get --json``'s object as a ``Fetched`` (Connect, then the method)."""
    if not obj.get("ok") or obj.get("status") != 200:
        raise ValueError(f"wwanlab get failed: {obj.get('error') or obj.get('status')}")
    connect, method = float(obj["connect_seconds"]), float(obj["seconds"])
    return Fetched(connect, connect + method, str(obj["sha256"]), int(obj["body_bytes"]))


register(
    Transport(
        "wtp-paper",
        "WTP/WSP",
        "wwanlab get through wwanlab gateway, WSP connection-oriented, WTP SAR, "
        "paper 000's timers (R 7 s)",
        serve=_serve("paper"),
        argv=_argv,
        read=read_get_json,
        ours=True,
    ),
    Transport(
        "wtp-tuned",
        "WTP/WSP",
        "as wtp-paper, with the retry interval R derived from the link (tuned, not the "
        "paper's profile)",
        serve=_serve("tuned"),
        argv=_argv,
        read=read_get_json,
        ours=True,
    ),
)
