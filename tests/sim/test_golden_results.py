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
    "probe:serial-9k6": "976cfcfe8e8b190eb552e2036130467c1c9efa9548f417efdcb740759ea5ea7f",
    "probe:gprs-one-user": "b3fd21c370a9a6a1c4c27006d4951a99f3f7f5b94f0d4ccf63b1b0b7a1b13053",
    "probe:gprs-busy": "6f239032dc81e268f1b624eeba38472960ffb340e5404875b5c4336d91f01237",
    "probe:gprs-one-user-llc-ack": (
        "da5a8072da42539a0aee9f68d07d93e236a08773f59d8534e93cdc5c513fbb25"
    ),
    "probe:gprs-busy-llc-ack": "5313decc0ababc56b31c76d4d978d902814db164d4e1e05c1877aa7cc53ccba9",
    "probe:gprs-radio-one-user": (
        "9dfdc0a5ce880af8881cb536397dae6f1fcc76953a5e26ca7fce46375ad1375e"
    ),
    "probe:gprs-radio-busy": "2a1664cda79562ec8386e8e027782831f0944dc5cb4ec68d86dd104f0cfd1e4f",
    "probe:gprs-radio-one-user-llc-ack": (
        "f2a4caaf69a7ffa94e5a325eb725a42af055d65efa823c944563af7662a5628a"
    ),
    "probe:gprs-radio-busy-llc-ack": (
        "6726e130a6170521cee757a03424b748abdad5e86119e48e1cd738837cf163a5"
    ),
    "probe:internet-gprs-2002": "42d06456c73abf930fccd765c582a5cadf5019ca403d2604460d2c2753df600f",
    "probe:gprs-3plus1": "9d5c1fd60cd0fdd45d798a54aba44f2220d61e1ea84f635b5435db40211f2971",
    "probe:cdma-1x": "6d668098bdeee4ad93c8ca9691f1315d4389aedccb954b066edac4d3a9312ea4",
    "probe:dialup-56k": "2812224222a2d100bd39ed54f59580c8effa772c1e7a922ed9bcf0cb63d3a003",
    "probe:vdeldrop": "c262bef49c3f6238a8566120283ebbdc97f5bda415578c3dfdffe66e5fc29bea",
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
