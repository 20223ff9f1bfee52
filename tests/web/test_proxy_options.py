"""The proxy options of ``wwanlab web --opt``: TCP-WWAN at the GGSN and the dual proxy's
transport and techniques, combinable; a download through each completes."""

import pytest

from wwanlab.link.presets import get_preset
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.testbed import DualFactory
from wwanlab.pep.options import apply, parse_options
from wwanlab.pep.tcp_wwan import TcpWwanProxy
from wwanlab.web.browser import Setup, download
from wwanlab.web.pages import generate
from wwanlab.web.topology import build


def setup_of(text: str) -> Setup:
    _, setup = apply(parse_options(text), generate("mail", 0), Setup())
    return setup


def test_dual_options_combine_into_one_proxy() -> None:
    factory = setup_of("udp-gprs,parse-and-push,chk-delta").explicit
    assert isinstance(factory, DualFactory)
    assert factory.transport == "udp-gprs"
    assert factory.config == DualConfig(push=True, chk=True, delta=True)
    plain = setup_of("dual").explicit
    assert isinstance(plain, DualFactory)
    assert (plain.transport, plain.config) == ("tcp", DualConfig())
    pushed = setup_of("parse-and-push").explicit
    assert isinstance(pushed, DualFactory) and pushed.transport == "tcp"
    assert setup_of("dual").transparent is None


def test_tcp_wwan_puts_its_proxy_at_the_ggsn_only() -> None:
    setup = setup_of("tcp-wwan")
    assert setup.explicit is None and setup.transparent is not None
    assert setup_of("compression").transparent is None


@pytest.mark.parametrize("options", ["tcp-wwan", "udp-gprs,parse-and-push", "dual,chk-delta"])
def test_a_download_through_each_proxy_completes(options: str) -> None:
    page = generate("altavista", 0)
    served, setup = apply(parse_options(options), page, Setup())
    result = download(served, setup, 1)
    assert result.complete
    assert {o.url for o in result.objects} == set(page.site())


def test_tcp_wwan_factory_makes_the_proxy() -> None:
    page = generate("altavista", 0)
    setup = setup_of("tcp-wwan")
    assert setup.transparent is not None
    topo = build(page, get_preset("gprs-3plus1"), 1)
    proxy = setup.transparent(topo, topo.rng("test"))
    assert isinstance(proxy, TcpWwanProxy)
