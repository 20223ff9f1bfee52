"""WSP/WTP: ``wwanlab get`` (connection-oriented, SAR) through ``wwanlab gateway``.

The gateway runs outside and fetches the file over HTTP from a ``FileServer`` on the
host's loopback; the client inside runs ``wwanlab get --json``. Two timer profiles:

- ``wtp-paper``: the retry interval R of paper 000's stack, WTP Appendix A as Kannel
  1.4.5 sets it for IP bearers (``L_R_WITH_USER_ACK`` = 7 s), at both ends;
- ``wtp-tuned``: R sized at each start to what was just sent over this link, at both
  ends (``--retry-link``, ``wap.wtp.bearer``): WTP 9.4.1 leaves the timer values to
  the bearer, and Appendix A's one R per bearer must cover a whole group (6.8 s on
  serial-9k6), so a lost Connect or a lost resent packet waits as long; sized, they
  wait 2.37 s and 2.31 s there.
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
from wwanlab.wap.wtp.bearer import FULL_PACKET, sized_retry
from wwanlab.wap.wtp.timers import L_R_WITH_USER_ACK, SAR_GROUP_LEN


def _wwanlab() -> str:
    """The ``wwanlab`` command of the running interpreter's environment."""
    return str(Path(sys.executable).with_name("wwanlab"))


def tuned_retry_interval(preset: Preset) -> float:
    """The gateway's sized R after a full group: its fixed ``--retry-interval`` too."""
    group = sized_retry(preset, "down", responder=True)
    return round(group.interval([FULL_PACKET] * SAR_GROUP_LEN, 0), 3)


def _sized(link: str) -> list[str]:
    """The options that size R for ``link`` (none for the paper's profile)."""
    return ["--retry-link", link] if link else []


def _serve(profile: str) -> Serve:
    @asynccontextmanager
    async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
        retry = L_R_WITH_USER_ACK if profile == "paper" else tuned_retry_interval(ctx.preset)
        link = "" if profile == "paper" else ctx.preset.name
        async with FileServer("127.0.0.1", ctx.files) as origin:
            argv = [
                _wwanlab(), "gateway", "--host", ctx.host, "--port-cl", "0", "--port-co", "0",
                "--allow-origin", "127.0.0.0/8", "--retry-interval", str(retry),
                "--log-level", "info", *_sized(link),
            ]  # fmt: skip
            async with running(argv, "listening") as line:
                co = line.split("connection_oriented=")[1].split()[0]
                yield {
                    "gateway": co,
                    "origin": f"127.0.0.1:{origin.port}",
                    "retry": retry,
                    "link": link,
                }

    return serve


def _argv(params: Params, path: str) -> list[str]:
    url = f"http://{params['origin']}{path}"
    return [
        _wwanlab(), "get", url, "--gateway", params["gateway"], "--json",
        "--retry-interval", str(params["retry"]), "--timeout", "3600",
        *_sized(str(params["link"])),
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
        "as wtp-paper, with the retry interval R sized at each start to what was sent "
        "over the link (tuned, not the paper's profile)",
        serve=_serve("tuned"),
        argv=_argv,
        read=read_get_json,
        ours=True,
    ),
)
