"""The named optimizations a user switches on (``wwanlab web ... --opt a,b``).

Each option of paper 003 changes the page (what the origins serve: compressed bodies,
reduced images) and/or the download's ``Setup`` (who resolves names, which proxies run,
how the browser fetches). Options combine: they are applied in the order given.

The catalogue switches on this package's proxies as well as the web model's page
changes, so it lives here, above both (``wwanlab.web`` imports nothing of this package).
"""

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.testbed import DualFactory, dual_proxy
from wwanlab.pep.tcp_wwan import TcpWwanProxy, make_tcp_wwan
from wwanlab.web.browser import Setup
from wwanlab.web.content import compress_full, compress_lossless, compress_lossy
from wwanlab.web.page import Page
from wwanlab.web.pages.tables import lossy_ratio
from wwanlab.web.topology import MOBILE_IP, WebTopology


@dataclass(frozen=True)
class Option:
    """One technique: its name, what it is (with the paper's section), what it changes."""

    name: str
    help: str
    page: Callable[[Page], Page] | None = None
    setup: Callable[[Setup], Setup] | None = None


def _setting(**changes: object) -> Callable[[Setup], Setup]:
    def change(setup: Setup) -> Setup:
        return dataclasses.replace(setup, **changes)  # type: ignore[arg-type]

    return change


def _lossy(page: Page) -> Page:
    """Images reduced to Table 3's ratio for the page's site (the sites' mean for any
    other page)."""
    return compress_lossy(page, lossy_ratio(page.name))


def _full(page: Page) -> Page:
    return compress_full(page, lossy_ratio(page.name))


def _tcp_wwan(topo: WebTopology, rng: random.Random) -> TcpWwanProxy:
    return make_tcp_wwan({MOBILE_IP}, topo.preset, rng, wired=topo.tcp)


def _dual(transport: str | None = None, **techniques: bool) -> Callable[[Setup], Setup]:
    """Switch on the dual proxy (or change the one already on): its channel's
    ``transport`` and the ``DualConfig`` techniques named; options combine."""

    def change(setup: Setup) -> Setup:
        current = setup.explicit
        if not isinstance(current, DualFactory):
            current = dual_proxy(DualConfig())
        config = dataclasses.replace(current.config, **techniques)
        factory = dual_proxy(
            config, current.client_store, current.server_store, transport or current.transport
        )
        return dataclasses.replace(setup, explicit=factory)

    return change


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "lossless",
            "section 4.1.1: HTML, CSS and JavaScript gzipped (Content-Encoding: gzip)",
            page=compress_lossless,
        ),
        Option(
            "lossy",
            "section 4.1.1: images reduced in depth, to Table 3's size ratio",
            page=_lossy,
        ),
        Option(
            "compression",
            "section 4.1.1 and Table 4: lossless and lossy together",
            page=_full,
        ),
        Option(
            "dns-boost",
            "section 4.2.2: the operator's DNS answers every name with its proxy, which "
            "fetches on the client's behalf",
            setup=_setting(dns_boost=True),
        ),
        Option(
            "url-rewrite",
            "section 4.2.2: the operator's proxy rewrites embedded URLs to itself (one DNS "
            "lookup, one server)",
            setup=_setting(url_rewrite=True),
        ),
        Option(
            "tcp-wwan",
            "section 4.3.1: a transparent proxy at the GGSN splits TCP; toward the mobile a "
            "fixed window of the link's bandwidth-delay product, paced at the link rate",
            setup=_setting(transparent=_tcp_wwan),
        ),
        Option(
            "dual",
            "section 2.1: the explicit dual proxy (client side on the mobile, server side "
            "in the operator's network) over TCP, no technique on",
            setup=_dual(),
        ),
        Option(
            "udp-gprs",
            "section 4.3.2: the dual proxy's channel is UDP-GPRS (credit flow control, "
            "NAKs, keep-alives, no handshake or slow start)",
            setup=_dual(transport="udp-gprs"),
        ),
        Option(
            "parse-and-push",
            "section 4.2.3: the dual proxy's server side pushes the embedded objects "
            "right after the main document",
            setup=_dual(push=True),
        ),
        Option(
            "chk-delta",
            "section 4.1.3: the dual proxy indexes objects by SHA-1 (CHK caching, aliases "
            "fetched once) and sends changed ones as a delta against the cached version",
            setup=_dual(chk=True, delta=True),
        ),
    )
}
"""Every option by name."""


def parse_options(text: str) -> list[Option]:
    """``"a,b"`` -> the options named; an unknown name is a ``UsageError``."""
    chosen: list[Option] = []
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        option = OPTIONS.get(name)
        if option is None:
            known = ", ".join(OPTIONS)
            raise UsageError(f"unknown option {name!r} (known: {known})")
        if option not in chosen:
            chosen.append(option)
    return chosen


def apply(options: list[Option], page: Page, setup: Setup) -> tuple[Page, Setup]:
    """The page and setup with every option applied, in order."""
    for option in options:
        if option.page is not None:
            page = option.page(page)
        if option.setup is not None:
            setup = option.setup(setup)
    return page, setup
