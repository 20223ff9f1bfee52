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
    "probe:serial-9k6": "251481b017a8714a567aab83127a92430a2e6ad9df684d1f25e6f30b74ae7122",
    "probe:gprs-one-user": "5bca9a26d2d9f5bee722693e1f4940d6f83f2f88b7dba1e0d0b42b87391c1b97",
    "probe:gprs-busy": "2ac398fefa99ba777eced38ef8d52188852b50d110849f30cefd7417205dd1d8",
    "probe:gprs-one-user-llc-ack": (
        "7b005d7a4e8591ec23da9e7cec4c7bafbb899ffd0eec80ab514b97f6ad4112a6"
    ),
    "probe:gprs-busy-llc-ack": "301d96f21ea99a2850c46f394edb5975f8d454e6aad94b340d6d40706d870091",
    "probe:gprs-radio-one-user": (
        "e3bc8f79d19532f18a1ed45112ae2160cda99df72bd0a2a285f5852d78b5639f"
    ),
    "probe:gprs-radio-busy": "7c88a32b06a5dcc3a25e2cae87d14940a57308cb531010cf4014f0eb195f60d9",
    "probe:gprs-radio-one-user-llc-ack": (
        "e1911ee690e29247a979bae723508e0717ba01f5b52261855b2ff61427583d6a"
    ),
    "probe:gprs-radio-busy-llc-ack": (
        "a876e7ef424f6ba88cc7a57f4d2d40ec9d2d1c13edcad01d2fa852fa3d720007"
    ),
    "probe:internet-gprs-2002": "bbcac9412495ce4c607899a2e818c526ce97a24c7bec941605f73d190a7ff54b",
    "probe:gprs-3plus1": "ad28b52e3428fa48b027867f1c793266bb46df0e5e6614bd356319e492170f9b",
    "probe:cdma-1x": "bd0e82322595f8ad90979c3a2ccec1f2d470e0b93c996327784e44f37e7cb8c0",
    "probe:dialup-56k": "efbfdd872a99c6f371263b15dc0dd15912bdfb85eb120c04c39f95220f1c8539",
    "probe:vdeldrop": "4dc93678739b810a490ca7035a7e7e1b1bebf440159ca04b9260ea2f7beaf992",
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
    "gprs-proxies:none": "98e47a2c4c0e512878f54cf4facb36fa65e38563d5a4f91fd7450982f7b75ce7",
    "gprs-proxies:snoop": "2b3f4f70ecbbbe59b8edf3ca6f9d968d42069e02f32ba5f221f114cbf5596ecc",
    "gprs-proxies:split": "084b800363bc8359d275dca327cf87cd10ac356233563697c6bdcab2cc328784",
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
