"""Reproduction of paper 001 (Gehlen, Bergs, "Performance of mobile Web Service access
using the Wireless Application Protocol"): SOAP over HTTP against SOAP over
connectionless WSP through a WAP gateway, with and without WBXML; data volume per call
(section 4.1) and the call latency t_call (section 4.4).

Two experiment kinds:
- ``soap-sim``: one call over the simulator's GPRS preset, every IP octet counted
  (``wwanlab.soap.simcall``): the data volume, and t_call on the phone's path;
- ``soap-loopback``: calls over real sockets on this machine, as the paper's section 4.4
  measured with client and service on one host: the benchmark service on aiohttp, our
  gateway for WSP, the SOAP client of ``wwanlab.soap.client``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.aio.origin_client import OriginClient
from wwanlab.emu.netns import EmulatorUnavailable, check_can_emulate
from wwanlab.experiments.reproduction import (
    AblationRun,
    Claim,
    ClaimPart,
    Context,
    PaperFigure,
    Reproduction,
    ReproductionResult,
    register,
    reproduction_page,
)
from wwanlab.experiments.scenario import Row, Scenario, experiment_kind
from wwanlab.experiments.store import ResultStore
from wwanlab.experiments.summary import summarize
from wwanlab.report import (
    Figure,
    Params,
    Table,
    Text,
)
from wwanlab.soap.client import (
    MAX_REPLY,
    Exchange,
    HttpTransport,
    SoapClient,
    Transport,
    Wire,
    WspTransport,
)
from wwanlab.soap.envelope import SOAP_HTTP_HEADERS, Call, Value
from wwanlab.soap.service import BenchmarkService, application
from wwanlab.soap.simcall import simulate_call
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.gateway.translate import to_reply
from wwanlab.wap.wbxml import TokenTable, encode
from wwanlab.wap.wbxml.soap import XML_CONTENT_TYPE
from wwanlab.wap.wbxml.tables.base import PageToken
from wwanlab.wap.wbxml.tables.soap import SOAP11
from wwanlab.wap.wsp.pdu import Reply

NAME = "wsp-webservices"
PAPER = "papers/001 sections 3.1, 4.1, 4.4 and 5"

# Paper 001 4: "three methods for benchmarking" (nop, getString, getIntArray); the
# payload sizes of Figures 3-6 did not survive extraction, so these are chosen (see
# ASSUMPTIONS): every reply still fits one connectionless WSP datagram on a 1500-octet
# path, as the paper's connectionless transport needs.
METHODS: list[tuple[str, int | None]] = [
    ("nop", None),
    ("getString", 10),
    ("getString", 100),
    ("getString", 500),
    ("getIntArray", 10),
    ("getIntArray", 50),
]
SIM_TRANSPORTS = ["http", "wsp", "wsp-wbxml"]
LOOPBACK_TRANSPORTS = ["http", "wsp", "wsp-wbxml", "wsp-co"]
# The one-host t_call claim's ablation: connectionless WSP with the gateway answering from
# the service in its own process (no HTTP hop), and direct HTTP on one kept-alive
# connection (what HTTP's TCP connection per call costs on one host).
ABLATION_TRANSPORTS = ["wsp-nohop", "http-keepalive"]
LABELS = {
    "http": "HTTP/TCP",
    "wsp": "WSP connectionless",
    "wsp-wbxml": "WSP connectionless + WBXML",
    "wsp-co": "WSP session (WTP)",
}
SIM_PRESET = "gprs-3plus1"  # paper 003's measured GPRS: 39.6/13.2 kbit/s, RTT ~0.6 s
SEED = 2003  # the paper's year
# The GPRS t_call extension's ablation: the same calls over the preset with its random
# radio delays switched off (wwanlab.link.presets GPRS_SWITCHES), by kind.
GPRS_ABLATION = {
    "cell reselections and RLC stalls off": f"{SIM_PRESET}[reselection=false,stalls=false]",
    "uplink access and downlink TBF set-up off": f"{SIM_PRESET}[access=false,tbf=false]",
    "both off": f"{SIM_PRESET}[reselection=false,stalls=false,access=false,tbf=false]",
}
SIM_REPETITIONS, QUICK_SIM_REPETITIONS = 5, 2
CALLS, QUICK_CALLS = 50, 10  # calls timed per method and transport on loopback
WARMUP_CALLS = 3  # calls before timing: imports, the gateway's origin connection
# Behind the emulator every call takes a GPRS round trip or two (about 1-2 s), so fewer
# calls and payloads: one of each method.
EMU_METHODS: list[tuple[str, int | None]] = [
    ("nop", None),
    ("getString", 500),
    ("getIntArray", 50),
]
EMU_CALLS, QUICK_EMU_CALLS = 5, 1

# Paper 001 section 3.1: "a SOAP call to the BabelFish translation Web Service of 508
# bytes length is encoded in WBXML. The resulting encoded message has a length of 326
# bytes, i.e. the original length has been reduced by 35%."
PAPER_BABELFISH_XML = 508
PAPER_BABELFISH_WBXML = 326
PAPER_WBXML_REDUCTION = 35.0  # % (section 3.1, and "about 35%" in 4.1)
PAPER_OVERHEAD_CUT = 100 / 3  # %: "reduced by more than a third" (4.1)
PAPER_T_CALL_HTTP = 250.0  # ms: "t_call,HTTP (about 250 ms average)" (4.4)
PAPER_T_CALL_WSP = 160.0  # ms: "t_call,WSP (about 160 ms average)" (4.4)
PAPER_S55_SECONDS = (6.0, 8.0)  # s: "takes about 6 to 8 seconds" (5)
ABOUT = 10.0  # percentage points: how far "about X%" may stray (assumption)

ASSUMPTIONS = [
    "Methods and payloads: nop(), getString(n) for n = 10, 100, 500 characters and "
    "getIntArray(n) for n = 10 and 50 integers; Figures 3-6, which held the paper's sizes, "
    "did not survive extraction. Every reply fits one connectionless WSP datagram on a "
    "1500-octet path (the simulator does not fragment IP, and the paper's connectionless "
    "transport sends one datagram each way). The string is the alphabet repeated, the "
    "integers 0..n-1.",
    "Envelopes: SOAP 1.1 RPC style with SOAP encoding and xsi:type on every accessor, "
    "namespaces SOAP-ENV/SOAP-ENC/xsi/xsd declared on the Envelope, as the J2ME toolkits of "
    "2003 wrote them; written by lxml (wwanlab.soap.envelope).",
    "WBXML: WBXML 1.3 with the project's SOAP 1.1 token table (docs/soap.md); the paper "
    "does not publish its table. The table's FPI travels in the string table.",
    f"Data volume (section 4.1) on the simulator, over the preset {SIM_PRESET} (the "
    "paper's phone used GPRS; the preset is paper 003's measured 3+1-slot GPRS link) with "
    "an MTU of 1500: every IP octet both ways, TCP's handshake and both FINs included, "
    "TCP with the RFC defaults and timestamps off. 'Protocol overhead' is every octet "
    "that is not the SOAP envelope.",
    "HTTP over TCP: one connection per call (HTTP/1.0 semantics: the service closes), the "
    "request with Host, Content-Type, SOAPAction and Content-Length, the response with "
    "Content-Type and Content-Length only. Real services add Date and Server lines, so the "
    "HTTP overhead here is a lower bound, which makes the claim about WSP's saving harder "
    "to meet, not easier.",
    "WSP on the simulator: the phone's connectionless client and the gateway's "
    "ConnectionlessServer with the gateway's own translation (WBXML SOAP decoded for the "
    "service, the reply encoded when the phone asks for it); the gateway and the service "
    "are one host, the wired leg between them free (it is off the air and the same for "
    "both transports).",
    f"t_call behind the emulator: the client in wwanlab emulate's namespace over {SIM_PRESET}"
    ", the gateway and service on the host side, the kernel's TCP; "
    f"{EMU_CALLS} timed calls of nop(), getString(500), getIntArray(50) per transport after "
    "one untimed call. Measured only where the machine can emulate (root, TUN).",
    "t_call on loopback (section 4.4: 'client and service were running on the local host'): "
    f"our gateway and the aiohttp service on this machine, {CALLS} timed calls per method "
    f"and transport after {WARMUP_CALLS} untimed ones, one run at a time. The paper's 250 "
    "and 160 ms came from a J2ME emulator on a 2003 PC; ours is a native client on a "
    "machine of today, so the claim is judged on the ratio, not the milliseconds.",
    f"'About X%' is read as X ± {ABOUT:g} percentage points.",
    "Ablations (the claims' 'Why it misses'): on one host, connectionless WSP with our "
    "gateway answering from the benchmark service in its own process, as the simulator's "
    "gateway does, and direct HTTP on one kept-alive connection, each as many calls as "
    f"the run; over GPRS, the simulated HTTP and WSP calls again over {SIM_PRESET} with "
    "cell reselections and RLC stalls, uplink access and downlink TBF set-up, or both "
    "switched off, with the run's repetitions.",
    "BabelFish envelope (section 3.1): the service's method BabelFish(translationmode, "
    "sourcedata) in the namespace urn:xmethodsBabelFish, as its published WSDL names it; "
    "the paper gives the envelope's size (508 octets) but not its text, so the source text "
    "is filled until the envelope has that size (1999 XML Schema namespaces, as toolkits "
    "of 2003 wrote). The paper's token table is not published and decides the size, so "
    "the result is a band over three table designs (ours; tags and attribute names only; "
    "tags only), each with and without a string table.",
]


# --- the experiment kinds ---------------------------------------------------------------


def _call(method: str, size: int | None) -> Call:
    return Call(method, () if size is None else (("n", size),))


@experiment_kind("soap-sim")
def run_sim(params: dict[str, Any], seed: int) -> list[Row]:
    """One call over the simulated link: its t_call and its octets both ways."""
    size = params.get("workload.size")
    call = _call(str(params["workload.method"]), None if size in (None, 0) else int(size))
    result = simulate_call(str(params["stack.transport"]), call, str(params["link.preset"]), seed)
    return [
        {
            "complete": result.complete,
            "t_call_s": result.t_call,
            "packets_up": result.packets_up,
            "packets_down": result.packets_down,
            "octets_up": result.octets_up,
            "octets_down": result.octets_down,
            "payload_up": result.payload_up,
            "payload_down": result.payload_down,
        }
    ]


@experiment_kind("soap-loopback")
def run_loopback(params: dict[str, Any], seed: int) -> list[Row]:
    """``workload.calls`` timed calls of every method over one transport, real sockets."""
    return asyncio.run(_loopback(str(params["stack.transport"]), int(params["workload.calls"])))


@experiment_kind("soap-emulated")
def run_emulated(params: dict[str, Any], seed: int) -> list[Row]:
    """Timed calls from inside ``wwanlab emulate``'s namespace over the GPRS preset to the
    gateway and service on the host side: real sockets, the kernel's TCP, the link model
    in real time (needs root)."""
    return asyncio.run(
        _emulated(str(params["stack.transport"]), int(params["workload.calls"]), seed)
    )


class _HoplessGateway(Gateway):
    """Our gateway answering from the benchmark service in its own process, as the
    simulator's gateway does: the WSP path without the HTTP hop to the service (the
    ablation of the one-host t_call claim)."""

    def __init__(self, config: GatewayConfig) -> None:
        super().__init__(config)
        self._service = BenchmarkService()

    async def _fetch(self, job: Any) -> Reply:
        status, reply = self._service.handle(job.request.body)
        content_type = [("Content-Type", XML_CONTENT_TYPE)]
        return to_reply(status, content_type, reply, job.request.accept)


class _KeptAliveHttp:
    """SOAP's HTTP binding over one kept-alive connection (the gateway's origin client):
    direct HTTP without TCP's handshake and teardown per call (the ablation)."""

    name = "http-keepalive"

    def __init__(self, policy: OriginPolicy) -> None:
        self._origin = OriginClient(policy, MAX_REPLY)

    async def exchange(self, url: str, body: bytes, content_type: str, accept: str) -> Exchange:
        head = (("Content-Type", content_type), ("Accept", accept), *SOAP_HTTP_HEADERS)
        response = await self._origin.fetch("POST", url, head, body)
        ctype = response.header("content-type") or ""
        unknown = Wire(0, 0, 0)  # t_call only: the wire is not counted on this path
        return Exchange(response.status, ctype, response.body, unknown, unknown)

    async def close(self) -> None:
        await self._origin.close()


async def _serve(host: str, *, hop: bool = True) -> tuple[str, Any, web.AppRunner]:
    """The benchmark service and our gateway on ``host``; (service URL, gateway, runner).
    Without ``hop`` the gateway answers from the service in its own process."""
    runner = web.AppRunner(application(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    port = runner.addresses[0][1]
    policy = OriginPolicy.from_strings([f"{host}/32"])
    config = GatewayConfig(host=host, port_cl=0, port_co=0, policy=policy)
    gateway = await (Gateway if hop else _HoplessGateway).start(config)
    return f"http://{host}:{port}/soap", gateway, runner


async def _timed_calls(
    url: str,
    transport: str,
    gateway: Any,
    methods: Sequence[tuple[str, int | None]],
    calls: int,
    warmup: int,
) -> list[Row]:
    """``calls`` timed calls of each method after ``warmup`` untimed ones."""
    chosen: Transport
    if transport == "http":
        chosen = HttpTransport()
    elif transport == "http-keepalive":
        chosen = _KeptAliveHttp(gateway.config.policy)
    elif transport == "wsp-co":
        chosen = WspTransport(gateway.address("co"), connectionless=False)
    else:
        chosen = WspTransport(gateway.address("cl"))
    rows: list[Row] = []
    async with SoapClient(url, chosen, wbxml=transport == "wsp-wbxml") as client:
        for method, size in methods:
            args: tuple[Value, ...] = () if size is None else (size,)
            for i in range(warmup + calls):
                result = await client.call(method, *args)
                if i >= warmup:
                    rows.append(
                        {
                            "workload.method": method,
                            "workload.size": size or 0,
                            "call": i - warmup,
                            "t_call_ms": result.t_call * 1000,
                            "t_soap_ms": result.t_soap * 1000,
                        }
                    )
    return rows


async def _loopback(transport: str, calls: int) -> list[Row]:
    hop = transport != "wsp-nohop"
    url, gateway, runner = await _serve("127.0.0.1", hop=hop)
    try:
        chosen = transport if hop else "wsp"
        return await _timed_calls(url, chosen, gateway, METHODS, calls, WARMUP_CALLS)
    finally:
        await gateway.close()
        await runner.cleanup()


async def _emulated(transport: str, calls: int, seed: int) -> list[Row]:
    from wwanlab.emu.link import EmulatedLink

    async with EmulatedLink(SIM_PRESET, seed=seed) as link:
        url, gateway, runner = await _serve(link.host_address)
        try:
            # the client runs in a thread inside the namespace, with its own event loop
            return await link.guard(
                link.run_in_namespace(
                    lambda: asyncio.run(
                        _timed_calls(url, transport, gateway, EMU_METHODS, calls, 1)
                    )
                )
            )
        finally:
            await gateway.close()
            await runner.cleanup()


def sim_scenario(quick: bool) -> Scenario:
    return Scenario(
        name="wsp_webservices_sim" + ("_quick" if quick else ""),
        kind="soap-sim",
        params={"link.preset": SIM_PRESET},
        sweep={
            "stack.transport": SIM_TRANSPORTS,
            "workload.method": sorted({m for m, _ in METHODS}),
            "workload.size": sorted({s or 0 for _, s in METHODS}),
        },
        repetitions=QUICK_SIM_REPETITIONS if quick else SIM_REPETITIONS,
        seed=SEED,
        description="Paper 001: one SOAP call over simulated GPRS, every octet counted",
    )


def emulated_scenario(quick: bool) -> Scenario:
    return Scenario(
        name="wsp_webservices_emulated" + ("_quick" if quick else ""),
        kind="soap-emulated",
        params={"workload.calls": QUICK_EMU_CALLS if quick else EMU_CALLS},
        sweep={"stack.transport": SIM_TRANSPORTS},
        seed=SEED,
        description=f"Paper 001: t_call from behind wwanlab emulate over {SIM_PRESET}",
    )


def loopback_scenario(quick: bool) -> Scenario:
    return Scenario(
        name="wsp_webservices_loopback" + ("_quick" if quick else ""),
        kind="soap-loopback",
        params={"workload.calls": QUICK_CALLS if quick else CALLS},
        sweep={"stack.transport": LOOPBACK_TRANSPORTS},
        seed=SEED,
        description="Paper 001 4.4: SOAP call latency with client and service on one host",
    )


def gprs_ablation_scenario(quick: bool) -> Scenario:
    """The simulated calls of HTTP and WSP again over each preset of ``GPRS_ABLATION``."""
    sim = sim_scenario(quick)
    return dataclasses.replace(
        sim,
        name="wsp_webservices_gprs_ablation" + ("_quick" if quick else ""),
        params={},
        sweep={
            **sim.sweep,
            "stack.transport": ["http", "wsp"],
            "link.preset": list(GPRS_ABLATION.values()),
        },
        description="Paper 001: one SOAP call over simulated GPRS, random radio delays off",
    )


def ablation_scenario(quick: bool) -> Scenario:
    return Scenario(
        name="wsp_webservices_ablation" + ("_quick" if quick else ""),
        kind="soap-loopback",
        params={"workload.calls": QUICK_CALLS if quick else CALLS},
        sweep={"stack.transport": ABLATION_TRANSPORTS},
        seed=SEED,
        description="Paper 001 4.4: one-host t_call without the gateway's hop, and HTTP "
        "kept alive",
    )


def _wanted(rows: Sequence[Row]) -> list[Row]:
    """The sweep's cross product has sizes a method does not take: keep the paper's."""
    keep = {(m, s or 0) for m, s in METHODS}
    return [r for r in rows if (r["workload.method"], r["workload.size"]) in keep]


# --- the BabelFish envelope (section 3.1) -----------------------------------------------------

BABELFISH_NS = "urn:xmethodsBabelFish"


def babelfish(text_length: int) -> bytes:
    """A BabelFish call (translationmode en_de) translating ``text_length`` characters."""
    source = ("Hello world, how are you today? " * (text_length // 32 + 1))[:text_length]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
        'xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" '
        'xmlns:xsd="http://www.w3.org/1999/XMLSchema"><SOAP-ENV:Body>'
        f'<ns1:BabelFish xmlns:ns1="{BABELFISH_NS}" '
        'SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">'
        '<translationmode xsi:type="xsd:string">en_de</translationmode>'
        f'<sourcedata xsi:type="xsd:string">{source}</sourcedata>'
        "</ns1:BabelFish></SOAP-ENV:Body></SOAP-ENV:Envelope>"
    ).encode()


def _table_variants() -> dict[str, TokenTable]:
    """Token tables the paper's unpublished one could have been: ours, ours without
    attribute values (names only), tags only."""
    names: dict[PageToken, tuple[str, str]] = {}
    for key, (name, _) in sorted(SOAP11.attr_starts.items()):
        if name not in {n for n, _ in names.values()}:
            names[key] = (name, "")
    return {
        "tags, attribute names and values (ours)": SOAP11,
        "tags and attribute names": dataclasses.replace(SOAP11, attr_starts=names, attr_values={}),
        "tags only": dataclasses.replace(SOAP11, attr_starts={}, attr_values={}),
    }


def babelfish_sizes() -> dict[str, tuple[int, int]]:
    """Per token table and string-table use: (XML, WBXML octets) of the 508-octet call."""
    xml = babelfish(PAPER_BABELFISH_XML - len(babelfish(0)))
    out = {}
    for name, table in _table_variants().items():
        for string_table in (True, False):
            wbxml = encode(xml, version="1.3", table=table, string_table=string_table)
            label = f"{name}, {'string table' if string_table else 'inline strings'}"
            out[label] = (len(xml), len(wbxml))
    return out


# --- claims -------------------------------------------------------------------------------


def _pct(a: float, b: float) -> float:
    """How much smaller ``a`` is than ``b``, in percent."""
    return 100 * (1 - a / b)


def _about(value: float, target: float) -> bool:
    return abs(value - target) <= ABOUT


def _label(method: str, size: int) -> str:
    return f"{method}({size})" if size else f"{method}()"


Volumes = dict[tuple[str, str, int], dict[str, float]]
"""Per (transport, method, size): mean octets, payload, overhead and t_call of one call."""


def volumes(rows: Sequence[Row]) -> Volumes:
    """Per (transport, method, size): mean octets, payload and overhead of one call."""
    out: Volumes = {}
    sums = summarize(
        _wanted(rows),
        by=("stack.transport", "workload.method", "workload.size"),
        value="t_call_s",
        complete="complete",
        means=("octets_up", "octets_down", "payload_up", "payload_down"),
    )
    for (transport, method, size), s in sums.items():
        total = s.means["octets_up"] + s.means["octets_down"]
        payload = s.means["payload_up"] + s.means["payload_down"]
        out[(str(transport), str(method), int(size))] = {  # type: ignore[call-overload]
            "total": total,
            "payload": payload,
            "overhead": total - payload,
            "t_call_s": s.mean,
        }
    return out


Timings = dict[tuple[str, str, int], tuple[float, float, float, float]]
"""Per (transport, method, size): median t_call, median t_soap, t_call's p10 and p90 (ms)."""


def loopback_means(rows: Sequence[Row]) -> Timings:
    """The medians and deciles of timed calls, grouped by DuckDB."""
    if not rows:
        return {}
    with ResultStore(":memory:") as store:
        store.write("calls", rows)
        found = store.query(
            'SELECT "stack.transport", "workload.method", "workload.size", '
            "median(t_call_ms), median(t_soap_ms), quantile_cont(t_call_ms, 0.1), "
            "quantile_cont(t_call_ms, 0.9) FROM calls GROUP BY ALL"
        )
    return {(str(t), str(m), int(s)): (a, b, c, d) for t, m, s, a, b, c, d in found}


# The claim tests are functions of data: ``claims`` feeds them our runs, ``on_paper`` the
# numbers paper 001 prints (3.1, 4.4, 5), and both judge alike.

CLAIM_OVERHEAD = (
    "The protocol overhead ... can be reduced by more than a third by simply choosing WSP "
    "instead of HTTP to transport the SOAP messages (4.1)"
)
CLAIM_BABELFISH = (
    "a SOAP call to the BabelFish translation Web Service of 508 bytes length is encoded in "
    "WBXML ... 326 bytes, i.e. the original length has been reduced by 35% (3.1)"
)
CLAIM_WBXML = (
    "Further reduction, about 35%, of data volume could be obtained by encoding the XML "
    "data using WBXML ... the reduction factor highly varies depending on the content "
    "transmitted (4.1)"
)
CLAIM_T_CALL = (
    "t_call,HTTP (about 250 ms average) considerably larger than t_call,WSP (about 160 ms "
    "average) ... reduced by about a third by choosing connectionless WSP instead of HTTP "
    "(4.4)"
)
CLAIM_T_CALL_GPRS = (
    "ours: over GPRS, connectionless WSP cuts t_call by about the paper's third (the paper "
    "measured t_call with client and service on one host)"
)
CLAIM_S55 = (
    "a simple SOAP method invocation from a Siemens S55 mobile phone over HTTP and GPRS "
    "takes about 6 to 8 seconds (5)"
)
PAPER_T_CALL_CUT = _pct(PAPER_T_CALL_WSP, PAPER_T_CALL_HTTP)


def overhead_claim(cut: Sequence[float]) -> Claim:
    """WSP's overhead below HTTP's by more than a third for every call."""
    return Claim(
        claim=CLAIM_OVERHEAD,
        paper="> 33% less overhead",
        ours=f"{min(cut):.0f}% to {max(cut):.0f}% less overhead per call "
        f"({len(cut)} calls, octets both ways, TCP handshake and FINs included)",
        holds=min(cut) > PAPER_OVERHEAD_CUT,
    )


def babelfish_claim(fish: dict[str, tuple[int, int]], ours_name: str | None = None) -> Claim:
    """The 508-octet call's WBXML size, (XML, WBXML) octets per token table: the table
    closest to the paper's 35% within ``ABOUT`` of it."""
    reductions = {name: _pct(w, x) for name, (x, w) in fish.items()}
    close = min(reductions, key=lambda n: abs(reductions[n] - PAPER_WBXML_REDUCTION))
    mine = f"; our table: -{reductions[ours_name]:.0f}%" if ours_name else ""
    return Claim(
        claim=CLAIM_BABELFISH,
        paper=f"{PAPER_BABELFISH_XML} -> {PAPER_BABELFISH_WBXML} octets (-35%)",
        ours=f"-{min(reductions.values()):.0f}% to -{max(reductions.values()):.0f}% over "
        f"the token tables the paper may have used; -{reductions[close]:.0f}% "
        f"({fish[close][1]} octets) with {close}{mine}",
        holds=_about(reductions[close], PAPER_WBXML_REDUCTION),
    )


def wbxml_claim(shrink: Sequence[float]) -> Claim:
    """WBXML's cut of the data volume, per call: the range meets 35% ± ``ABOUT``."""
    return Claim(
        claim=CLAIM_WBXML,
        paper="about 35%, varying with content",
        ours=f"{min(shrink):.0f}% to {max(shrink):.0f}% less data volume than WSP "
        f"with XML, by method and payload",
        holds=min(shrink) <= PAPER_WBXML_REDUCTION + ABOUT
        and max(shrink) >= PAPER_WBXML_REDUCTION - ABOUT,
    )


def t_call_part(what: str, cut: Sequence[float]) -> ClaimPart:
    """WSP's cut of t_call, per call, within ``ABOUT`` of the paper's 250 -> 160 ms."""
    return ClaimPart(
        what,
        all(_about(c, PAPER_T_CALL_CUT) for c in cut),
        f"WSP {-max(cut):+.0f}% to {-min(cut):+.0f}% per call",
    )


def s55_claim(seconds: Sequence[float], ours: str) -> Claim:
    """An HTTP call over GPRS takes seconds (at least one), not milliseconds."""
    return Claim(
        claim=CLAIM_S55,
        paper="6-8 s (t_inv on the phone: network and the phone's CPU)",
        ours=ours,
        holds=min(seconds) >= 1.0,
    )


WHY_T_CALL = (
    "on one host a call costs processing, not round trips: connectionless WSP saves the "
    "TCP connection direct HTTP opens per call, about half of HTTP's t_call here, but "
    "our gateway spends about as much again on its own HTTP request to the service, so "
    "WSP gains nothing over HTTP until that hop is taken out"
)


def one_host_cuts(loop: Timings, faster: str) -> list[float]:
    """Per call, how much faster ``faster`` is than direct HTTP on one host, in percent."""
    keys = [(m, s or 0) for m, s in METHODS]
    return [_pct(loop[(faster, m, s)][0], loop[("http", m, s)][0]) for m, s in keys]


def t_call_ablation(loop: Timings, ablation: Timings) -> list[AblationRun]:
    """The one-host t_call claim with the gateway's hop to the service in and out, and
    for scale what HTTP's connection per call costs; each against direct HTTP."""
    both = {**loop, **ablation}

    def run(variant: str, faster: str, tested: bool) -> AblationRun:
        cut = one_host_cuts(both, faster)
        ms = statistics.median(both[(faster, m, s or 0)][0] for m, s in METHODS)
        ours = f"{-max(cut):+.0f}% to {-min(cut):+.0f}% against direct HTTP ({ms:.2f} ms)"
        return AblationRun(variant, ours, t_call_part(variant, cut).holds if tested else None)

    return [
        run("WSP through our gateway, HTTP hop to the service (this run)", "wsp", True),
        run("WSP, the gateway answering in-process (no HTTP hop)", "wsp-nohop", True),
        run(
            "for scale: direct HTTP on one kept-alive connection (no TCP connection per call)",
            "http-keepalive",
            False,
        ),
    ]


WHY_T_CALL_GPRS = (
    "the preset's radio delays are random per call and as large as the round trip WSP "
    "saves: uplink access costs up to 0.4 s for each uplink burst and a downlink TBF "
    "set-up up to 0.47 s, and a cell reselection or RLC stall of 4-5 s can fall inside "
    "a call, so with few repetitions a call's cut strays more than 10 points from the "
    "third (the emulator's link is the same preset)"
)


def sim_cuts(vol: Volumes) -> list[float]:
    """Per call, how much faster connectionless WSP is than HTTP over simulated GPRS."""
    keys = [(m, s or 0) for m, s in METHODS]
    return [_pct(vol[("wsp", m, s)]["t_call_s"], vol[("http", m, s)]["t_call_s"]) for m, s in keys]


def gprs_ablation(vol: Volumes, ablated: dict[str, Volumes]) -> list[AblationRun]:
    """The GPRS t_call extension's simulated part, on this run's preset and with each
    kind of random radio delay off (``ablated``: volumes by ``GPRS_ABLATION`` label)."""
    runs = [("this run's preset (all on)", vol), *ablated.items()]
    return [
        AblationRun(variant, part.ours, part.holds)
        for variant, part in ((v, t_call_part("simulated GPRS", sim_cuts(x))) for v, x in runs)
    ]


def claims(
    vol: Volumes,
    loop: Timings,
    fish: dict[str, tuple[int, int]],
    emu: Timings | None = None,
    ablation: Timings | None = None,
    ablated: dict[str, Volumes] | None = None,
) -> list[Claim]:
    """The paper's claims on our numbers, and this project's over GPRS (simulated, and
    behind the emulator when ``emu`` holds its t_call: when the machine could emulate).
    ``ablation`` holds the one-host t_call of ``ABLATION_TRANSPORTS`` and ``ablated`` the
    simulated volumes over ``GPRS_ABLATION``'s presets, which explain the t_call claims."""
    keys = [(m, s or 0) for m, s in METHODS]
    cut = [_pct(vol[("wsp", m, s)]["overhead"], vol[("http", m, s)]["overhead"]) for m, s in keys]
    shrink = [
        _pct(vol[("wsp-wbxml", m, s)]["total"], vol[("wsp", m, s)]["total"]) for m, s in keys
    ]
    loop_cut = one_host_cuts(loop, "wsp")
    sim_cut = sim_cuts(vol)
    http_ms = statistics.median(loop[("http", m, s)][0] for m, s in keys)
    wsp_ms = statistics.median(loop[("wsp", m, s)][0] for m, s in keys)
    gprs_http = [vol[("http", m, s)]["t_call_s"] for m, s in keys]
    share = (
        100 * min(gprs_http) / PAPER_S55_SECONDS[1],
        100 * max(gprs_http) / PAPER_S55_SECONDS[0],
    )
    one_host = Claim.of_parts(
        CLAIM_T_CALL,
        f"{PAPER_T_CALL_HTTP:g} -> {PAPER_T_CALL_WSP:g} ms (-{PAPER_T_CALL_CUT:.0f}%), "
        "client and service on one host",
        f"one host: HTTP {http_ms:.2f} ms, WSP through our gateway {wsp_ms:.2f} ms "
        "(medians of the calls' medians)",
        [t_call_part("one host", loop_cut)],
    )
    if ablation:
        one_host = one_host.with_why(WHY_T_CALL, t_call_ablation(loop, ablation))
    gprs = Claim.of_parts(
        CLAIM_T_CALL_GPRS,
        f"-{PAPER_T_CALL_CUT:.0f}% (the paper's one-host ratio)",
        "over GPRS the round trip of TCP's handshake that WSP saves shows",
        [t_call_part("simulated GPRS", sim_cut), *_emulated_part(emu)],
        extension=True,
    )
    if ablated:
        gprs = gprs.with_why(WHY_T_CALL_GPRS, gprs_ablation(vol, ablated))
    return [
        overhead_claim(cut),
        babelfish_claim(fish, next(iter(fish))),
        wbxml_claim(shrink),
        one_host,
        gprs,
        s55_claim(
            gprs_http,
            f"t_call over simulated GPRS {min(gprs_http):.2f}-{max(gprs_http):.2f} s: "
            f"the network's share of the paper's 6-8 s is {share[0]:.0f}-{share[1]:.0f}%, the "
            "rest is the S55's t_SOAP (Table 1: 10-100x slower than a PC)",
        ),
    ]


def on_paper() -> list[Claim]:
    """The claim tests on the numbers paper 001 prints: the BabelFish call's 508 and 326
    octets (3.1), WBXML's "about 35%" (4.1), t_call 250 and 160 ms (4.4), the S55's 6 to
    8 s (5). "More than a third" less overhead (4.1) comes with no number to test."""
    t_call = [t_call_part("paper", [PAPER_T_CALL_CUT])]
    return [
        babelfish_claim({"paper": (PAPER_BABELFISH_XML, PAPER_BABELFISH_WBXML)}),
        wbxml_claim([PAPER_WBXML_REDUCTION]),
        Claim.of_parts(CLAIM_T_CALL, "250 -> 160 ms", "the paper's averages", t_call),
        s55_claim(PAPER_S55_SECONDS, "the paper's 6 and 8 s"),
    ]


def _emulated_part(emu: Timings | None) -> list[ClaimPart]:
    if not emu:
        return []
    keys = [(m, s or 0) for m, s in EMU_METHODS]
    cut = [_pct(emu[("wsp", m, s)][0], emu[("http", m, s)][0]) for m, s in keys]
    return [t_call_part(f"emulated {SIM_PRESET}, kernel TCP", cut)]


# --- figures ---------------------------------------------------------------------------------


def volume_figure(vol: Volumes, path: Any) -> Any:
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import protocol_colour, save

    keys = [(m, s or 0) for m, s in METHODS]
    fig = MplFigure(figsize=(8, 4.5), dpi=100)
    ax = fig.add_subplot()
    width = 0.27
    for i, transport in enumerate(SIM_TRANSPORTS):
        xs = [k + (i - 1) * width for k in range(len(keys))]
        payload = [vol[(transport, m, s)]["payload"] for m, s in keys]
        overhead = [vol[(transport, m, s)]["overhead"] for m, s in keys]
        ax.bar(
            xs,
            payload,
            width,
            color=protocol_colour(transport),
            label=f"{LABELS[transport]}: SOAP",
        )
        ax.bar(
            xs,
            overhead,
            width,
            bottom=payload,
            color=protocol_colour(transport),
            alpha=0.35,
            hatch="//",
            label=f"{LABELS[transport]}: headers",
        )
    ax.set_xticks(range(len(keys)), [_label(m, s) for m, s in keys], fontsize=8)
    ax.set_ylabel("octets per call, both directions")
    ax.set_title(f"Data volume of one SOAP call over {SIM_PRESET} (paper 001 4.1)")
    ax.legend(fontsize=7, ncol=3)
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, path)


def latency_figure(
    loop: Timings,
    vol: Volumes,
    path: Any,
    emu: Timings | None = None,
) -> Any:
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import PAPER_COLOUR, protocol_colour, save

    keys = [(m, s or 0) for m, s in METHODS]
    fig = MplFigure(figsize=(9, 4.5), dpi=100)
    left, right = fig.subplots(1, 2)
    for transport in LOOPBACK_TRANSPORTS:
        left.plot(
            range(len(keys)),
            [loop[(transport, m, s)][0] for m, s in keys],
            marker="o",
            color=protocol_colour(transport),
            label=LABELS[transport],
        )
    left.axhline(PAPER_T_CALL_HTTP, color=PAPER_COLOUR, linestyle=":", label="paper: HTTP 250 ms")
    left.axhline(PAPER_T_CALL_WSP, color=PAPER_COLOUR, linestyle="--", label="paper: WSP 160 ms")
    left.set_yscale("log")
    left.set_ylabel("t_call (ms, median)")
    left.set_title("One host (paper 001 4.4, Figures 5-6)", fontsize=9)
    for transport in SIM_TRANSPORTS:
        right.plot(
            range(len(keys)),
            [vol[(transport, m, s)]["t_call_s"] * 1000 for m, s in keys],
            marker="o",
            color=protocol_colour(transport),
            label=LABELS[transport],
        )
        if emu:
            at = [keys.index((m, s or 0)) for m, s in EMU_METHODS]
            right.scatter(
                at,
                [emu[(transport, m, s or 0)][0] for m, s in EMU_METHODS],
                marker="x",
                s=60,
                color=protocol_colour(transport),
                label=f"{LABELS[transport]}, emulated (median)",
            )
    right.set_ylim(bottom=0)
    right.set_title(f"{SIM_PRESET}: simulated (lines), emulated (crosses)", fontsize=9)
    for ax in (left, right):
        ax.set_xticks(range(len(keys)), [_label(m, s) for m, s in keys], fontsize=7, rotation=20)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return save(fig, path)


def babelfish_figure(fish: dict[str, tuple[int, int]], path: Any) -> Any:
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import PAPER_COLOUR, protocol_colour, save

    fig = MplFigure(figsize=(8, 3.6), dpi=100)
    ax = fig.add_subplot()
    names = list(fish)
    ax.barh(range(len(names)), [w for _, w in fish.values()], color=protocol_colour("wsp-wbxml"))
    ax.axvline(PAPER_BABELFISH_WBXML, color=PAPER_COLOUR, linestyle="--", label="paper: 326")
    ax.axvline(PAPER_BABELFISH_XML, color=PAPER_COLOUR, linestyle=":", label="XML: 508")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlabel("WBXML octets")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(fig, path)


# --- the reproduction -------------------------------------------------------------------------


def body(ctx: Context) -> ReproductionResult:
    sim_rows = ctx.execute(sim_scenario(ctx.quick))
    loop_rows = ctx.execute(loopback_scenario(ctx.quick), serial=True)
    ablation = loopback_means(ctx.execute(ablation_scenario(ctx.quick), serial=True))
    radio_off = ctx.execute(gprs_ablation_scenario(ctx.quick))
    ablated = {
        label: volumes([r for r in radio_off if r["link.preset"] == preset])
        for label, preset in GPRS_ABLATION.items()
    }
    emu: Timings = {}
    emu_note = ""
    try:
        check_can_emulate()
    except EmulatorUnavailable as exc:
        emu_note = f"t_call behind the emulator was not measured: {exc}"
    else:
        emu = loopback_means(ctx.execute(emulated_scenario(ctx.quick), serial=True))
    vol = volumes(sim_rows)
    loop = loopback_means(loop_rows)
    fish = babelfish_sizes()
    found = claims(vol, loop, fish, emu, ablation, ablated)
    fig_volume = volume_figure(vol, ctx.figure_path("volume.png"))
    fig_latency = latency_figure(loop, vol, ctx.figure_path("latency.png"), emu)
    fig_fish = babelfish_figure(fish, ctx.figure_path("babelfish.png"))
    volume_rows = [
        {
            "call": _label(m, s),
            "transport": LABELS[t],
            "octets": round(v["total"]),
            "payload": round(v["payload"]),
            "overhead": round(v["overhead"]),
            "t_call_ms_gprs": round(v["t_call_s"] * 1000, 1),
        }
        for (t, m, s), v in sorted(vol.items())
    ]
    latency_rows = [
        {
            "where": where,
            "call": _label(m, s),
            "transport": LABELS[t],
            "t_call_ms": round(c, 3),
            "t_call p10-p90": f"{lo:.3f}-{hi:.3f}",
            "t_soap_ms": round(p, 3),
        }
        for where, points in (("one host", loop), (f"emulated {SIM_PRESET}", emu))
        for (t, m, s), (c, p, lo, hi) in sorted(points.items())
    ]
    emulated = (
        [
            f"Behind wwanlab emulate ({SIM_PRESET}, kernel TCP, real sockets): "
            + ", ".join(
                f"{_label(m, s or 0)} HTTP {emu[('http', m, s or 0)][0]:.0f} ms, WSP "
                f"{emu[('wsp', m, s or 0)][0]:.0f} ms"
                for m, s in EMU_METHODS
            )
            + " (medians)."
        ]
        if emu
        else [emu_note]
    )
    fish_rows = [
        {"token table": g, "xml_octets": x, "wbxml_octets": w, "reduction_%": round(_pct(w, x), 1)}
        for g, (x, w) in fish.items()
    ]
    page = reproduction_page(
        ctx,
        title="Mobile web services over WAP (paper 001)",
        summary="paper 001: SOAP over HTTP vs connectionless WSP (+WBXML): volume, t_call",
        setup=[
            Text(
                "A SOAP client calls the paper's benchmark service by HTTP/TCP, by "
                "connectionless WSP through a WAP gateway (ours), with the envelope in XML "
                "or WBXML, and in a WSP session. Data volume: one call over simulated GPRS, "
                "every IP octet counted. t_call: over simulated GPRS, and over real sockets "
                "with client, gateway and service on this machine, as the paper measured."
            ),
            Params(
                {
                    "link (data volume, GPRS t_call)": SIM_PRESET,
                    "calls": ", ".join(_label(m, s or 0) for m, s in METHODS),
                    "transports": ", ".join(LABELS[t] for t in LOOPBACK_TRANSPORTS),
                    "timed calls per point (one host)": QUICK_CALLS if ctx.quick else CALLS,
                    "seed": SEED,
                }
            ),
        ],
        claims=found,
        figures=[
            PaperFigure(
                "Data volume per call (section 4.1)",
                Figure(fig_volume, "SOAP payload and protocol overhead, octets both ways"),
                "no figure; the text gives 'more than a third' less overhead with WSP and "
                "'about 35%' less with WBXML (claims above)",
                Table.from_rows(volume_rows, caption="Data volume per call, mean over runs"),
            ),
            PaperFigure(
                "Latency t_call (section 4.4, Figures 3-6)",
                Figure(fig_latency, "t_call per call and transport"),
                "Figures 3-6 did not survive extraction; the text's averages (HTTP 250 ms, "
                "WSP 160 ms, one host) are drawn in black",
                Table.from_rows(latency_rows, caption="t_call on one host, medians"),
            ),
            PaperFigure(
                "WBXML: the BabelFish call (section 3.1)",
                Figure(fig_fish, "The 508-octet call in WBXML under each token table"),
                "508 -> 326 octets (-35%)",
                Table.from_rows(
                    fish_rows, caption="The 508-octet call under each plausible token table"
                ),
            ),
        ],
        assumptions=ASSUMPTIONS,
        findings=emulated,
    )
    return ReproductionResult(NAME, found, page)


register(
    Reproduction(
        NAME,
        paper=PAPER,
        title="SOAP over connectionless WSP and WBXML vs HTTP (data volume, t_call)",
        body=body,
        on_paper=on_paper,
        extensions=("t_call over GPRS (simulated, and behind the emulator)",),
    )
)
