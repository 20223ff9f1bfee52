"""The runs themselves: one page download through the browser model, one FTP transfer.

This is the seam to the web packages (``wwanlab.web``): pages, the browser and its named
options; the rest of the reproduction sees rows only. A configuration whose options are
not all known to ``wwanlab.pep.options`` is not measured (``available``), and its cells
read "not measured" on the page.
"""

import dataclasses
import random
import statistics
from dataclasses import fields
from pathlib import Path

from wwanlab.experiments.scenario import Row
from wwanlab.link.presets import get_preset
from wwanlab.pep.dual.store import ChkStore
from wwanlab.pep.dual.testbed import DualFactory, dual_proxy
from wwanlab.pep.options import OPTIONS, apply, parse_options
from wwanlab.reproductions.wwan_web.configs import Config
from wwanlab.reproductions.wwan_web.ftp import KB, ftp_download
from wwanlab.reproductions.wwan_web.published import LINKS, SITES4
from wwanlab.web.browser import PageDownload, Setup, download
from wwanlab.web.cache import HttpCache, prime
from wwanlab.web.content import ASSUMPTIONS as CONTENT_ASSUMPTIONS
from wwanlab.web.content import REVISIT_AFTER, compressibility, revisit
from wwanlab.web.page import Page
from wwanlab.web.pages import SITES, Compressibility, generate
from wwanlab.web.pages.hosts import ROLES
from wwanlab.web.pages.tables import ASSUMPTIONS as PAGE_ASSUMPTIONS
from wwanlab.web.topology import ASSUMPTIONS as TOPOLOGY_ASSUMPTIONS
from wwanlab.web.topology import linux_2_4


def available(config: Config) -> bool:
    """Whether every option ``config`` names exists."""
    return all(name in OPTIONS for name in config.options)


def table1_sites() -> tuple[str, ...]:
    return tuple(SITES)


def split_site(site: str) -> tuple[str, str]:
    """``cnn@even`` -> (``cnn``, ``even``): a site with its page's host spread
    (``web.pages.hosts``; the roles by default)."""
    name, _, spread = site.partition("@")
    return name, spread or ROLES


def page_download(link: str, site: str, config: Config, page_seed: int, seed: int) -> Row:
    """One download of the site's page ``page_seed`` under ``config``; its row. A
    ``repeat`` configuration first downloads the page, then measures the page as
    ``web.content.revisit`` makes it ``REVISIT_AFTER`` later, with the dual proxy's CHK
    stores (when it runs) and, for ``browser_cache``, the browser's HTTP cache kept from
    the first visit. Behind the dual proxy, whose channel returns no header fields, the
    cache holds what a direct first visit would have stored (``web.cache.prime``)."""
    options = parse_options(",".join(config.options))
    name, spread = split_site(site)
    original = generate(name, page_seed, spread)
    setup = Setup(link=link, strategy=config.strategy, connections=config.connections)
    transformed, setup = apply(options, original, setup)
    if not config.repeat:
        return row(download(transformed, setup, seed), original)
    dual = isinstance(setup.explicit, DualFactory)
    if isinstance(setup.explicit, DualFactory):
        setup = dataclasses.replace(setup, explicit=_with_stores(setup.explicit))
    cache = HttpCache() if config.browser_cache else None
    first = download(transformed, dataclasses.replace(setup, cache=cache), seed)
    if cache is not None and dual:
        prime(cache, [transformed.main, *transformed.objects], first.total_time)
    ended = first.total_time
    later = revisit(original, random.Random(seed), changed=ended + REVISIT_AFTER / 2)
    transformed, _ = apply(options, later, setup)
    if isinstance(setup.explicit, DualFactory):  # the same caches, a fresh proxy pair
        setup = dataclasses.replace(setup, explicit=_with_stores(setup.explicit))
    again = dataclasses.replace(setup, cache=cache, clock=ended + REVISIT_AFTER)
    return row(download(transformed, again, seed + 1), later)


def _with_stores(factory: DualFactory) -> DualFactory:
    """The same dual proxy with CHK stores that outlive one download (new ones the first
    time)."""
    client = factory.client_store if factory.client_store is not None else ChkStore()
    server = factory.server_store if factory.server_store is not None else ChkStore()
    return dual_proxy(factory.config, client, server, factory.transport)


def row(d: PageDownload, original: Page) -> Row:
    """Time, throughput of the page's content (Table 1's T'put: the original bytes over
    the time) and Figure 4's shares; the breakdown's link overhead ("other") counts as
    the paper's "Other under utilization" with the idle time it calls so."""
    shares = d.breakdown.shares()
    content_kb = original.total_bytes / KB
    return {
        "complete": d.complete,
        "seconds": d.total_time,
        "content_kb": content_kb,
        "kbps": content_kb * 8 / d.total_time if d.total_time > 0 else None,
        "body_kb": d.body_bytes / KB,
        "downlink_kb": d.downlink_bytes / KB,
        "failed_objects": sum(1 for o in d.objects if not o.ok),
        "cached_objects": sum(1 for o in d.objects if o.cached),
        "connections": len(d.connections),
        "dns_queries": d.dns_queries,
        "share_payload": shares["payload"],
        "share_dns": shares["dns"],
        "share_handshake": shares["tcp"],
        "share_other": shares["other"] + shares["under"],
    }


def ftp_row(link: str, kb: int, seed: int) -> Row:
    result = ftp_download(link, kb * KB, seed, linux_2_4())
    return {"complete": result.complete, "seconds": result.seconds, "kbps": result.kbps}


def table3(repetitions: int) -> dict[str, Compressibility]:
    """Table 3 on our pages: each of the four sites' pages ``0 .. repetitions - 1``,
    compressed as the options do, averaged."""
    out: dict[str, Compressibility] = {}
    for site in SITES4:
        found = [compressibility(generate(site, seed), site) for seed in range(repetitions)]
        out[site] = Compressibility(
            *(statistics.fmean(getattr(c, f.name) for c in found) for f in fields(Compressibility))
        )
    return out


ASSUMPTIONS = [
    *(f"Testbed: {a}" for a in TOPOLOGY_ASSUMPTIONS),
    *(f"Pages: {a}" for a in PAGE_ASSUMPTIONS),
    *(f"Content: {a}" for a in CONTENT_ASSUMPTIONS),
    *(f"Link {p.name}: {a}" for p in map(get_preset, LINKS) for a in p.assumptions),
]
"""What the testbed, the pages, the content transforms and the links assume, as the
modules that build them list it."""


def timeline(path: Path, seed: int) -> tuple[Path, PageDownload]:
    """Figure 3: one CNN download (page 0) by the default browser on GPRS, drawn as the
    ``wwanlab web --plot`` timeline (connections against time, each GET a tick)."""
    from wwanlab.web.plot import plot_download

    d = download(generate("cnn", 0), Setup(), seed)
    return plot_download(d, path), d
