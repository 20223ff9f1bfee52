"""Paper 003's measured pages: Table 1 (the ten sites) and Table 3 (their compressibility).

Table 1, "Web download latencies (using Mozilla/HTTP/1.1) over GPRS WWAN and other
characteristics for different websites and their content distribution": per site the
download time from the real servers and from the paper's virtual hosting (mean and
standard deviation over 20 or more runs, section 3), over 100 Mbit/s Ethernet and
802.11, the number of domains, the embedded objects (count, sum, average and largest
size in KB) and the throughput of the virtual-hosting download.

Units. A KB here is 1000 bytes: the throughput column is exactly the sum times 8 over
the WWAN-Virtual time in kbit/s (mail: 36.7 * 8 / 34.5 = 8.5), true for all ten rows
with 1000-byte KB and for none with 1024 (mail would be 8.7). The sum is therefore every
byte the page download moved, the main document included, and so is the count: the
average is sum / count in every row. ``generate`` builds pages on that reading.

Table 3, "Amount of compression achievable on the content of the four popular websites":
fixed-fidelity content (HTML/CSS/JS) before and after lossless compression (gzip),
variable-fidelity content (images) before and after the lossy reduction, and the total
compression. Its totals are not Table 1's sums (mail 29.2 KB against 36.7 KB, CNN 195.4
against 186.8): the paper measured the two tables on different snapshots. The shares
and ratios carry over; the absolute KB do not. Its total column follows from its KB for
mail and yahoo; amazon's 67.6% and CNN's 52.6% are 0.6 and 0.1 points above what their KB
give (67.0%, 52.5%).
"""

import statistics
from dataclasses import dataclass

KB = 1000  # bytes: Table 1's throughput column (see the module docstring)


@dataclass(frozen=True, slots=True)
class Site:
    """One row of Table 1."""

    name: str
    wwan_real_s: float  # download latency from the real servers, mean
    wwan_real_sd: float
    wwan_virtual_s: float  # from the paper's virtual web hosting, mean
    wwan_virtual_sd: float
    wired_s: float  # 100 Mbit/s Ethernet (standard deviation "low and not shown")
    wlan_s: float  # 11 Mbit/s 802.11
    domains: int
    count: int  # objects, the main document included
    sum_kb: float
    avg_kb: float
    max_kb: float
    throughput_kbps: float  # of the WWAN-Virtual download

    @property
    def total_bytes(self) -> int:
        return round(self.sum_kb * KB)

    @property
    def max_bytes(self) -> int:
        return round(self.max_kb * KB)


def _row(name: str, *values: float) -> Site:
    real, real_sd, virtual, virtual_sd, wired, wlan, domains, count = values[:8]
    total, avg, largest, throughput = values[8:]
    return Site(
        name, real, real_sd, virtual, virtual_sd, wired, wlan, int(domains), int(count),
        total, avg, largest, throughput,
    )  # fmt: skip


# Paper 003 Table 1, in the paper's order (increasing content); columns as ``Site``.
SITES: dict[str, Site] = {
    row.name: row
    for row in (
        _row("altavista", 14.2, 3.1, 13.3, 2.2, 0.7, 1.1, 2, 4, 13.6, 3.4, 10.1, 8.2),
        _row("mail", 43.3, 5.5, 34.5, 3.4, 1.0, 1.3, 4, 11, 36.7, 3.3, 11.0, 8.5),
        _row("yahoo", 38.8, 4.1, 35.0, 3.1, 1.1, 1.5, 6, 16, 60.3, 3.8, 36.0, 13.8),
        _row("go", 90.3, 11.5, 69.2, 4.5, 2.0, 2.8, 3, 29, 92.8, 3.2, 51.8, 10.7),
        _row("bbc", 93.7, 9.1, 72.6, 6.1, 2.1, 3.0, 2, 35, 72.5, 2.1, 38.4, 8.0),
        _row("amazon", 102.3, 9.8, 76.4, 7.7, 2.1, 2.9, 3, 42, 91.9, 2.2, 46.8, 9.6),
        _row("aol", 105.5, 11.5, 80.0, 7.3, 2.7, 3.4, 8, 66, 168.5, 2.6, 21.7, 16.9),
        _row("sourceforge", 107.2, 11.7, 92.1, 6.1, 2.6, 2.9, 5, 53, 132.3, 2.5, 40.3, 11.5),
        _row("fortunecity", 121.3, 9.0, 114.4, 7.1, 3.0, 3.6, 1, 46, 168.7, 3.7, 59.1, 11.8),
        _row("cnn", 204.0, 17.6, 196.3, 12.4, 3.1, 4.2, 6, 67, 186.8, 2.8, 22.3, 7.6),
    )
}


@dataclass(frozen=True, slots=True)
class Compressibility:
    """One row of Table 3 (or the same measured on a page): KB before and after."""

    fixed_kb: float  # fixed fidelity (HTML, CSS, JS), original
    lossless_kb: float  # ... after lossless compression
    variable_kb: float  # variable fidelity (images), original
    lossy_kb: float  # ... after the lossy reduction
    total_compression_pct: float

    @property
    def lossless_ratio(self) -> float:
        return self.lossless_kb / self.fixed_kb

    @property
    def lossy_ratio(self) -> float:
        return self.lossy_kb / self.variable_kb

    @property
    def fixed_share(self) -> float:
        """Fixed-fidelity bytes as a share of all the page's bytes."""
        return self.fixed_kb / (self.fixed_kb + self.variable_kb)


# Paper 003 Table 3 (section 4.1.1): fixed orig., lossless, variable orig., lossy, total %.
TABLE3: dict[str, Compressibility] = {
    "mail": Compressibility(11.8, 3.0, 17.4, 8.8, 59.6),
    "yahoo": Compressibility(36.8, 7.1, 24.9, 11.7, 69.5),
    "amazon": Compressibility(45.4, 9.5, 46.0, 20.7, 67.6),
    "cnn": Compressibility(160.0, 65.3, 35.4, 27.6, 52.6),
}

# The paper gives no split for the other six sites. Each of them takes the mean over the
# four sites of Table 3 (each site counting once, as each is one page): see ASSUMPTIONS.
MEAN_FIXED_SHARE = statistics.fmean(row.fixed_share for row in TABLE3.values())
MEAN_LOSSLESS_RATIO = statistics.fmean(row.lossless_ratio for row in TABLE3.values())
MEAN_LOSSY_RATIO = statistics.fmean(row.lossy_ratio for row in TABLE3.values())


def fixed_share(site: str) -> float:
    """The share of a site's bytes that is fixed fidelity (Table 3, else the mean)."""
    row = TABLE3.get(site)
    return row.fixed_share if row else MEAN_FIXED_SHARE


def lossless_ratio(site: str) -> float:
    """Fixed-fidelity bytes after gzip over before (Table 3, else the mean)."""
    row = TABLE3.get(site)
    return row.lossless_ratio if row else MEAN_LOSSLESS_RATIO


def lossy_ratio(site: str) -> float:
    """Image bytes after the lossy reduction over before (Table 3, else the mean)."""
    row = TABLE3.get(site)
    return row.lossy_ratio if row else MEAN_LOSSY_RATIO


ASSUMPTIONS = [
    "Table 1's object count and sum include the main HTML document: its throughput column "
    "is the sum over the WWAN-Virtual time for every site, so the sum is all the page's "
    "bytes; a KB is 1000 bytes (the same column fits 1000 and not 1024).",
    "Table 3's shares and ratios, not its KB, carry over to Table 1's pages (its totals "
    "differ from Table 1's sums); the six sites without a Table 3 row take the mean of the "
    f"four rows: fixed share {MEAN_FIXED_SHARE:.3f}, lossless ratio "
    f"{MEAN_LOSSLESS_RATIO:.3f}, lossy ratio {MEAN_LOSSY_RATIO:.3f}.",
]
