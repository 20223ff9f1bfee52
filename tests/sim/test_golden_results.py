"""Pinned results of whole seeded runs: their pcaps and result rows, by sha256.

``test_sim_golden.py`` pins the simulator's own corner cases; this file pins what the
project's users see from it: a probe of every link preset, points of the wap-vs-tcp
reproduction, lossy TCP bulk transfers (the workload of ``benchmarks/bench_vs_ns3.py``)
and gprs-proxies downloads through Snoop and Split. The digests were taken before the
simulator's hot paths were optimized for issue 16; a faster simulator must give the
same octets at the same virtual times, the same random draws and the same counters.

To see the digests of a run (after a deliberate change of results, never to make this
pass): ``python -m tests.sim.test_golden_results``.
"""

import dataclasses
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from wwanlab.experiments.probe import probe
from wwanlab.experiments.transfers import http_transfer, wap_transfer
from wwanlab.reproductions import wap_vs_tcp
from wwanlab.reproductions.gprs_proxies.network import download
from wwanlab.sim.bulk import BulkLink, BulkResult, bulk_transfer
from wwanlab.tcp import TcpConfig

PROBE_COUNT = 60
PROBE_SEED = 7
WAP_POINTS = [("wap", 4000), ("http-sack", 4000), ("http-newreno", 25000), ("wap", 25000)]
WAP_LOSS = 0.1
WAP_SEED = 2002
BULK_SIZE = 400_000
BULK_LINK = BulkLink(10e6, 0.05, 100, loss=0.01)
SERIAL_LINK = BulkLink(9600, 0.0, 100, loss=0.05, overhead_bytes=8, bits_per_byte=10)

GOLDEN = {
    "probe:serial-9k6": "c8eab7170bc0db6cd309d3c197f7a52ae5acc7aee4e6b808db449008f4136891",
    "probe:gprs-one-user": "513acbfa67ef57cbeff10a48ed0fe6b0d3976405c4d41309c8422ff588915cfb",
    "probe:gprs-busy": "ca2e88eb64d9bfba76ce90bc075ad3108567222885ebb4efb5db496e4361c389",
    "probe:gprs-one-user-llc-ack": (
        "bc0af38c2528958d11a0ea011ec74d61f0378d70f87f80a94ecae6754c2a5096"
    ),
    "probe:gprs-busy-llc-ack": "80f52e3ca1cff110a49ef57747fc038bbc38eb8be6d66dcff0aae57358a2605f",
    "probe:gprs-radio-one-user": (
        "59839a3b43ef63d9afea63791d730f3822c36d52811372547201c328f14bf174"
    ),
    "probe:gprs-radio-busy": "ef0e1ab87265ec6f1f9f9355a12f31713e2e075a8e0ff7feb79b48632bfe0070",
    "probe:gprs-radio-one-user-llc-ack": (
        "bdd94f74145b6ffafd1554f1461a7979bff0e1ace0816a390aa421da496746db"
    ),
    "probe:gprs-radio-busy-llc-ack": (
        "9bed8b8b067c5186ccf85af747abaa1f53431f1e72ad3f0ee53be0303800d14d"
    ),
    "probe:internet-gprs-2002": "b7820d6ff54aa48ea9037b4c9ec643bfb5f67f79bdcb9ee48fef9f449d603ed4",
    "probe:gprs-3plus1": "72bec3102dc8434a20e1f95efba4edc1e273ed9d906093ba31993a43ab79053a",
    "probe:cdma-1x": "ee118f1c61c71fa3d395e4393516ff8376c83c3da1a694db90dc209e10725736",
    "probe:dialup-56k": "7bd69bc0c25d32afb83705cb9b51d2e0354ec0d5ca90f2e6bf729fe47dddab52",
    "probe:vdeldrop": "ae4acf4d9cee543f6ddd86b06256a07e2d9c728a298a84d21dd9b0317a17b501",
    "wap-vs-tcp:wap:4000": "8d9a4aa7223372080633572abe2f8cce4b9ed1811c26b0dbd4fa9b180e9a6368",
    "wap-vs-tcp:http-sack:4000": (
        "ae658c4c0f80294bdac21621ef958b8a0c999322d47cf3c86f34ba2a1546dead"
    ),
    "wap-vs-tcp:http-newreno:25000": (
        "18b8583309dad213a6a5a85ad085bc57eb9f2b39e9d12e6d36512224304e37c1"
    ),
    "wap-vs-tcp:wap:25000": "233ff435e3b93a5df6bf3ad1dee19a7fb6b3df045f67616b49d44540cb42e35c",
    "bulk:sack": "c4d618c7b8888e305e61651e4716a072bfe15aa5113d87a6358413cba55e663e",
    "bulk:newreno": "38009ca66b587e88e1de1f06d63265d7763eb7496099ced9ec418b947784dfe8",
    "bulk:serial-reno": "d84184ec3939c2a462adc98ec2279c897061d9f16f067944ef3d4bf63a7360c5",
    "gprs-proxies:none": "713a952a4de73145fa8a510f9033c66ba9aa24d1d56ff692f03719c7d99ed4d7",
    "gprs-proxies:snoop": "8ac5d49864613706e90186d4dfd214281fb265eafa52c478c8994620e45e3657",
    "gprs-proxies:split": "7f01873ce20ef746f720145100a185bf40fb217640ad9fe30029f28ed45e8338",
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rows_digest(rows: Any, pcap: bytes = b"") -> str:
    """Of a pcap's octets followed by the rows as JSON with sorted keys (floats print as
    their shortest exact repr)."""
    return sha256(pcap + json.dumps(rows, sort_keys=True).encode())


def run_probe(preset: str, tmp: Path) -> str:
    pcap = tmp / f"{preset}.pcap"
    result = probe(preset, seed=PROBE_SEED, count=PROBE_COUNT, pcap=pcap)
    return rows_digest(result.to_json(), pcap.read_bytes())


def run_wap_vs_tcp(protocol: str, size: int, tmp: Path) -> str:
    """The reproduction's row of the point, and the serial line's pcap of the same run.
    The energy columns added since the digests were taken are left out: they come from
    a tap that only reads, and every pinned column must stay as it was."""
    params = {"stack.protocol": protocol, "workload.size": size, "link.overrides.loss": WAP_LOSS}
    rows = [
        {k: v for k, v in row.items() if not k.startswith(("joules_", "j_per_mb_"))}
        for row in wap_vs_tcp.run_one(params, WAP_SEED)
    ]
    pcap = tmp / f"{protocol}-{size}.pcap"
    if protocol == "wap":
        wap_transfer(size, WAP_LOSS, WAP_SEED, pcap=str(pcap))
    else:
        variant = protocol.removeprefix("http-")
        config = TcpConfig.for_variant(variant)
        http_transfer(size, WAP_LOSS, WAP_SEED, variant=variant, tcp=config, pcap=str(pcap))
    return rows_digest(rows, pcap.read_bytes())


def bulk_row(result: BulkResult) -> dict[str, Any]:
    row = dataclasses.asdict(result)
    row["goodput_bps"] = result.goodput_bps
    return row


def run_bulk(name: str) -> str:
    size, link, config = {
        "sack": (BULK_SIZE, BULK_LINK, TcpConfig.for_variant("sack")),
        "newreno": (BULK_SIZE, BULK_LINK, TcpConfig.for_variant("newreno")),
        "serial-reno": (30_000, SERIAL_LINK, TcpConfig.for_variant("reno")),
    }[name]
    pcap = io.BytesIO()
    result = bulk_transfer(size, link, config, seed=3, pcap=pcap)
    assert result.complete
    return rows_digest(bulk_row(result), pcap.getvalue())


def run_gprs(proxy: str) -> str:
    result = download("busy", proxy, seed=11, rtt=True)
    assert result.complete
    row = dataclasses.asdict(result)
    row["throughput_kbps"] = result.throughput_kbps
    return rows_digest(row)


def digest(key: str, tmp: Path) -> str:
    kind, _, rest = key.partition(":")
    if kind == "probe":
        return run_probe(rest, tmp)
    if kind == "wap-vs-tcp":
        protocol, size = rest.split(":")
        return run_wap_vs_tcp(protocol, int(size), tmp)
    if kind == "bulk":
        return run_bulk(rest)
    return run_gprs(rest)


@pytest.mark.parametrize("key", list(GOLDEN))
def test_golden_result(key: str, tmp_path: Path) -> None:
    assert digest(key, tmp_path) == GOLDEN[key]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name in GOLDEN:
            print(f'    "{name}": "{digest(name, Path(tmp))}",')
