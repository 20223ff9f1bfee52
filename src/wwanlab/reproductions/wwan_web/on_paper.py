"""Paper 003's claim tests fed the paper's own numbers (issue 23): every claim whose
numbers the paper prints is judged by the same function as our runs, on a ``Results``
built from its tables.

A cell is the printed mean over the paper's 20 downloads (section 3: "repeated 20 or
more times"), with the printed standard deviation where there is one (Table 1's
WWAN-Virtual column, which is also Tables 4 and 6's HTTP/1.1-default) and none
elsewhere. Claims the paper states in words only (Figure 4's shares, Figure 5's curves,
parse-and-push, CHK + delta, Figures 6-7) have no printed numbers to feed and are left
out; Figure 5's part of the connections claim likewise.
"""

from wwanlab.experiments.reproduction import Claim
from wwanlab.experiments.summary import Summary
from wwanlab.reproductions.wwan_web import claims as C
from wwanlab.reproductions.wwan_web import published as P
from wwanlab.reproductions.wwan_web.results import Key, Results

RUNS = 20  # section 3


def _cell(key: tuple[object, ...], mean: float, sd: float = 0.0, **means: float) -> Summary:
    return Summary(key, RUNS, mean, sd, means=dict(means))


def paper_results() -> Results:
    """Every cell the paper prints, keyed as our runs are."""
    pages: dict[Key, Summary] = {}

    def put(link: str, site: str, config: str, mean: float, sd: float = 0.0, **m: float) -> None:
        pages[(link, site, config)] = _cell((link, site, config), mean, sd, **m)

    for site, row in P.SITES.items():
        default = P.TABLE4[site]["default"] if site in P.TABLE4 else row.wwan_virtual_s
        put(C.GPRS, site, "default", default, row.wwan_virtual_sd, kbps=row.throughput_kbps)
    for site in P.SITES4:
        put(C.GPRS, site, "full", P.TABLE4[site]["full"])
        put(C.GPRS, site, "pipelining", P.TABLE6[site]["pipelining"])
        put(C.GPRS, site, "opt-6", P.TABLE6[site]["opt"])
        put(C.GPRS, site, "full-opt", P.TABLE7[site]["opt"])
        put(C.GPRS, site, "full-opt-dns", P.TABLE7[site]["opt_dns"])
        put(C.GPRS, site, "tcp-wwan", P.TABLE8[site]["tcp_wwan"])
        put(C.GPRS, site, "udp-gprs", P.TABLE8[site]["udp_gprs"])
        put(C.GPRS, site, "client-reconf", P.TABLE9[site]["client"][0])
        for link in P.LINKS[1:]:
            kbps = P.TABLE11[link][site][0]
            put(link, site, "default", P.SITES[site].sum_kb * 8 / kbps, kbps=kbps)
    ftp = {
        (link, kb): _cell((link, kb), kbps, P.TABLE2_GPRS_FTP[kb][1] if link == C.GPRS else 0.0)
        for link, sizes in P.TABLE10.items()
        for kb, (kbps, _) in sizes.items()
    }
    for kb, (kbps, sd) in P.TABLE2_GPRS_FTP.items():  # Table 2 where it and Table 10 differ
        ftp[(C.GPRS, kb)] = _cell((C.GPRS, kb), kbps, sd)
    return Results(pages, ftp)


def on_paper() -> list[Claim]:
    """The claims the paper's printed numbers can be fed to, judged on them."""
    r = paper_results()
    return [
        C.throughput_claim(r, tuple(P.SITES)),
        C.compression_claim(r, P.TABLE3),
        C.pipelining_claim(r),
        C.connections_claim(r, figure5=False),
        C.dns_claim(r),
        C.transport_claim(r),
        C.all_claim(r),
        C.mismatch_claim(r),
    ]
