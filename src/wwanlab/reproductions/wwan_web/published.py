"""Paper 003's published numbers, transcribed as printed, each with its table or section.

Tables 1 and 3 are the page models' (``wwanlab.web.pages``), re-exported here. Where
the paper prints a derived number (an improvement, a degradation) beside the
numbers it derives from, both are kept as printed: some do not follow from their own row
(``implied_improvement`` recomputes them), and the page shows both.
"""

from wwanlab.web.pages import SITES, TABLE3, Compressibility

__all__ = ["SITES", "TABLE3", "Compressibility"]  # re-exported beside the rest

SITES4 = ("mail", "yahoo", "amazon", "cnn")  # section 3: the four sites studied from Table 3 on


# Tables 1 and 3 live with the page models that are built from them: web.pages.tables.
TABLE1 = SITES
# Section 3: web throughput "varies between only 7.5 Kbps to 17 Kbps".
WEB_TPUT_RANGE = (7.5, 17.0)

# Table 2: FTP throughput over GPRS, one TCP connection: file KB -> (kbit/s, sd).
TABLE2_GPRS_FTP: dict[int, tuple[float, float]] = {
    1: (13.2, 1.5),
    5: (18.1, 0.9),
    10: (18.8, 2.1),
    50: (29.7, 3.3),
    100: (30.5, 3.2),
}


# Section 4.1.1: "significant opportunities for data compression (between 52% to 70%)".
COMPRESSION_RANGE = (52.0, 70.0)

# Table 4: download time (s) with HTTP/1.1-default and each compression; Improv. is Full's.
TABLE4: dict[str, dict[str, float]] = {
    "mail": {"default": 34.5, "lossy": 32.6, "lossless": 31.9, "full": 28.4, "improv": 17.7},
    "yahoo": {"default": 35.1, "lossy": 32.2, "lossless": 23.6, "full": 20.7, "improv": 40.9},
    "amazon": {"default": 76.4, "lossy": 71.5, "lossless": 69.2, "full": 62.7, "improv": 17.9},
    "cnn": {"default": 196.3, "lossy": 187.5, "lossless": 183.1, "full": 174.3, "improv": 11.2},
}
COMPRESSION_GAIN_RANGE = (11.0, 41.0)  # section 4.1.1 with Table 4: 11.2% to 40.9%
COMPRESSION_BEST_SITE = "yahoo"  # section 4.1.1: "(except for Yahoo)"

# Table 6: HTTP/1.1-default (2 connections), Pipelining and Opt. (6 connections).
TABLE6: dict[str, dict[str, float]] = {
    "mail": {"default": 34.5, "pipelining": 15.2, "pipe_imp": 55.9, "opt": 21.5, "opt_imp": 37.7},
    "yahoo": {"default": 35.1, "pipelining": 22.7, "pipe_imp": 35.3, "opt": 24.2, "opt_imp": 31.1},
    "amazon": {
        "default": 76.4,
        "pipelining": 39.2,
        "pipe_imp": 48.7,
        "opt": 43.5,
        "opt_imp": 43.1,
    },
    "cnn": {"default": 196.3, "pipelining": 89.1, "pipe_imp": 54.6, "opt": 123.0, "opt_imp": 37.3},
}
PIPELINING_RANGE = (35.0, 56.0)  # section 4.1.2: "between 35% to 56% benefit"
OPT_RANGE = (31.0, 43.0)  # Table 6, Opt. Improv.: 31.1% to 43.1%

# Figure 5 (its curves did not survive extraction; the text does, section 4.2.1).
FIGURE5_CONNECTIONS = (2, 5, 6, 7, 10, 15, 20)  # the figure's x axis as extracted
FIGURE5_BEST = 6  # "In all the cases, we found the best performance when 6 connections"
FIGURE5_RANGE = (35.0, 42.0)  # "The download latency for HTTP/1.1-Opt reduced by 35-42%"

# Table 7: all with full compression; HTTP/1.1-def., 1.1-Opt, 1.1-Opt + DNS-b/URL-r, Improv.
TABLE7: dict[str, dict[str, float]] = {
    "mail": {"default": 28.4, "opt": 17.7, "opt_dns": 16.5, "improv": 58.1},
    "yahoo": {"default": 20.7, "opt": 14.3, "opt_dns": 13.4, "improv": 64.7},
    "amazon": {"default": 62.7, "opt": 35.7, "opt_dns": 33.8, "improv": 53.9},
    "cnn": {"default": 174.3, "opt": 109.2, "opt_dns": 101.1, "improv": 58.0},
}
DNS_RANGE = (5.0, 9.0)  # section 4.2.2: DNS lookups' elimination "adds another 5-9%"
SESSION_RANGE = (53.0, 65.0)  # section 4.2.2: "combined improvements ... between 53-65%"
# The text's 53-65% is Table 7's printed Improv. column, which follows from no base among
# the paper's times; the times give 48.5-61.8% against Table 4's HTTP/1.1-default (cnn:
# 196.3 -> 101.1 s). The claim test uses the envelope of both (issue 23: a test the
# paper's own numbers fail is a defect of the test).
SESSION_TEST_RANGE = (48.0, 65.0)

# Section 4.2.3 and 4.1.3 (dual-proxy techniques, no table).
PARSE_AND_PUSH_RANGE = (5.0, 12.0)  # "an additional 5%-12% improvement"
CHK_DELTA_RANGE = (3.0, 6.0)  # "improves real web-browsing performance by about 3-6%"

# Table 8: App. + Session opts (1.1-Opt + DNS-b/URL-r): None, T1 = TCP-WWAN, T2 = UDP-GPRS.
TABLE8: dict[str, dict[str, float]] = {
    "mail": {"none": 16.5, "tcp_wwan": 15.7, "t1_imp": 11.2, "udp_gprs": 14.2, "t2_imp": 13.6},
    "yahoo": {"none": 13.4, "tcp_wwan": 11.6, "t1_imp": 12.7, "udp_gprs": 11.4, "t2_imp": 14.2},
    "amazon": {"none": 33.8, "tcp_wwan": 30.8, "t1_imp": 8.6, "udp_gprs": 29.9, "t2_imp": 11.3},
    "cnn": {"none": 101.1, "tcp_wwan": 96.24, "t1_imp": 4.8, "udp_gprs": 92.7, "t2_imp": 7.7},
}
TCP_WWAN_RANGE = (5.0, 13.0)  # section 4.3.2: "TCP-WWAN achieves between 5-13%"
UDP_GPRS_RANGE = (7.0, 14.0)  # section 4.3.2: UDP-GPRS "between 7-14%"
# The text rounds Table 8's printed Improv. columns; the table's own times give T1
# 4.8-13.4% (mail 16.5 -> 15.7 s, yahoo 13.4 -> 11.6 s) and T2 8.3-14.9%. The claim tests
# use the envelope of the text and the times, to the half point.
TCP_WWAN_TEST_RANGE = (4.5, 13.5)
UDP_GPRS_TEST_RANGE = (7.0, 15.0)

# Table 9: latency (s) and improvement over HTTP/1.1-default of the combined schemes.
TABLE9: dict[str, dict[str, tuple[float, float]]] = {
    "mail": {"no_reconf_1": (15.7, 54.4), "no_reconf_2": (13.2, 61.6), "client": (12.4, 64.0)},
    "yahoo": {"no_reconf_1": (11.6, 66.9), "no_reconf_2": (11.4, 67.2), "client": (9.9, 71.7)},
    "amazon": {"no_reconf_1": (30.8, 59.6), "no_reconf_2": (27.4, 64.1), "client": (24.3, 68.1)},
    "cnn": {"no_reconf_1": (96.2, 50.9), "no_reconf_2": (65.1, 66.8), "client": (59.3, 69.7)},
}
# Section 7: "reduce the client-response times by at least a factor of two"; Table 9's
# Client-reconf. column spans 64.0-71.7%.
ALL_TECHNIQUES_RANGE = (64.0, 72.0)
AMAZON_ALL_NO_RECONF = (76.4, 29.3)  # section 4.5: "from 76.4 seconds to 29.3 seconds"

# Figure 4: the bars' totals (s) as printed above them, and what the text says of the shares.
FIGURE4_TOTALS = {"mail": 34.5, "yahoo": 35.0, "amazon": 76.4, "cnn": 196.3}
FIGURE4_MAIL_DNS_HANDSHAKE = 29.0  # section 3: DNS + TCP 3W/SS "about 29% for mail.com"
FIGURE4_UNDERUSE_RANGE = (35.0, 55.0)  # section 3: under-utilized "between 35% to 55%"

# Tables 10 and 11: throughput (kbit/s) and degradation (%) from the ideal downlink rate.
LINKS = ("gprs-3plus1", "cdma-1x", "dialup-56k")
IDEAL_KBPS = {"gprs-3plus1": 39.6, "cdma-1x": 144.0, "dialup-56k": 56.0}  # sections 3, 5
TABLE10: dict[str, dict[int, tuple[float, int]]] = {
    "gprs-3plus1": {
        1: (13.2, -67),
        5: (18.1, -66),
        10: (18.8, -54),
        50: (30.5, -23),
        100: (30.5, -23),
    },
    "cdma-1x": {
        1: (16.3, -87),
        5: (23.3, -84),
        10: (37.8, -74),
        50: (87.5, -39),
        100: (94.1, -34),
    },
    "dialup-56k": {
        1: (29.1, -48),
        5: (35.6, -37),
        10: (44.3, -22),
        50: (46.1, -18),
        100: (45.8, -19),
    },
}
FTP_SIZES_KB = (1, 5, 10, 50, 100)
TABLE11: dict[str, dict[str, tuple[float, int]]] = {
    "gprs-3plus1": {
        "mail": (8.5, -79),
        "yahoo": (13.8, -66),
        "amazon": (9.6, -75),
        "cnn": (7.6, -81),
    },
    "cdma-1x": {
        "mail": (34.6, -76),
        "yahoo": (41.2, -71),
        "amazon": (38.4, -73),
        "cnn": (32.8, -77),
    },
    "dialup-56k": {
        "mail": (37.1, -34),
        "yahoo": (42.8, -24),
        "amazon": (43.1, -23),
        "cnn": (38.5, -32),
    },
}


def implied_improvement(before: float, after: float) -> float:
    """The improvement (%) a row's own latencies imply: 100 (1 - after / before)."""
    return 100 * (1 - after / before)


def degradation(kbps: float, link: str) -> float:
    """Throughput below the link's ideal downlink rate, in % (negative, as printed)."""
    return 100 * (kbps / IDEAL_KBPS[link] - 1)
