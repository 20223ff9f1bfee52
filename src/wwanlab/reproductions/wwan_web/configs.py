"""The configurations of paper 003's tables, each a browser strategy plus named options.

Every download of the reproduction is one of these on one link and one page. The option
names are ``wwanlab.pep.options``' (what ``wwanlab web --opt`` takes), so a user can
repeat any cell of any table by hand; ``repeat`` marks the configurations measured on a
second visit of a page whose first visit filled the caches (section 4.1.3).
"""

from dataclasses import dataclass

OPT_CONNECTIONS = 6  # Table 5: "HTTP/1.1-Opt. Use of 6 'persistent' TCP conn."
DEFAULT_CONNECTIONS = 2  # Table 5: HTTP/1.1-def. "two 'persistent' TCP conn."


@dataclass(frozen=True)
class Config:
    """One column of one of the paper's tables."""

    label: str
    strategy: str  # http1.1 | pipelining | opt (the browser's strategy names)
    connections: int
    options: tuple[str, ...] = ()
    repeat: bool = False  # measured on a repeat visit (caches warm from the first)
    browser_cache: bool = False  # the browser keeps its HTTP cache between the visits


def _opt(n: int) -> Config:
    return Config(f"HTTP/1.1 with {n} connections", "opt", n)


FULL = ("compression",)
SESSION = (*FULL, "dns-boost")

CONFIGS: dict[str, Config] = {
    # Tables 1, 4, 6, 10, 11 and Figure 4: the browser as it comes (Mozilla 1.4, section 3)
    "default": Config("HTTP/1.1-def. (2 conn.)", "http1.1", DEFAULT_CONNECTIONS),
    # Table 4
    "lossy": Config("+ lossy", "http1.1", DEFAULT_CONNECTIONS, ("lossy",)),
    "lossless": Config("+ lossless", "http1.1", DEFAULT_CONNECTIONS, ("lossless",)),
    "full": Config("+ full compression", "http1.1", DEFAULT_CONNECTIONS, FULL),
    # Table 6 and Figure 5
    "pipelining": Config("HTTP/1.1-Pipelining", "pipelining", DEFAULT_CONNECTIONS),
    **{f"opt-{n}": _opt(n) for n in (5, 6, 7, 10, 15, 20)},
    # Table 7
    "full-opt": Config("full + 1.1-Opt", "opt", OPT_CONNECTIONS, FULL),
    "full-opt-dns": Config("full + 1.1-Opt + DNS-b/URL-r", "opt", OPT_CONNECTIONS, SESSION),
    # Table 8 (T1 is also Table 9's No-reconf.-I)
    "tcp-wwan": Config("... + TCP-WWAN (T1)", "opt", OPT_CONNECTIONS, (*SESSION, "tcp-wwan")),
    "udp-gprs": Config("... + UDP-GPRS (T2)", "opt", OPT_CONNECTIONS, (*SESSION, "udp-gprs")),
    # Table 9
    "no-reconf-2": Config(
        "No-reconf.-II (pipelining)", "pipelining", DEFAULT_CONNECTIONS, (*SESSION, "tcp-wwan")
    ),
    "client-reconf": Config(
        "Client-reconf.",
        "opt",
        OPT_CONNECTIONS,
        (*FULL, "udp-gprs", "parse-and-push", "chk-delta"),
        repeat=True,
    ),
    # Sections 4.2.3 and 4.1.3: the dual proxy without and with each technique
    "dual": Config("dual proxy (full compression)", "opt", OPT_CONNECTIONS, (*FULL, "dual")),
    "dual-push": Config(
        "dual proxy + parse-and-push", "opt", OPT_CONNECTIONS, (*FULL, "dual", "parse-and-push")
    ),
    # ... on a repeat visit by a browser with its HTTP cache (section 4.1.3: "real
    # web-browsing"; Mozilla 1.4 had one), and, for the ablation, with the cache cleared
    "dual-repeat": Config(
        "dual proxy, repeat visit",
        "opt",
        OPT_CONNECTIONS,
        (*FULL, "dual"),
        repeat=True,
        browser_cache=True,
    ),
    "dual-chk": Config(
        "dual proxy + CHK caching and delta, repeat visit",
        "opt",
        OPT_CONNECTIONS,
        (*FULL, "dual", "chk-delta"),
        repeat=True,
        browser_cache=True,
    ),
    "dual-repeat-nocache": Config(
        "dual proxy, repeat visit, browser cache cleared",
        "opt",
        OPT_CONNECTIONS,
        (*FULL, "dual"),
        repeat=True,
    ),
    "dual-chk-nocache": Config(
        "dual proxy + CHK caching and delta, repeat visit, browser cache cleared",
        "opt",
        OPT_CONNECTIONS,
        (*FULL, "dual", "chk-delta"),
        repeat=True,
    ),
}
FIGURE5 = {2: "default", **{n: f"opt-{n}" for n in (5, 6, 7, 10, 15, 20)}}
