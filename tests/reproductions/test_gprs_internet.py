"""The gprs-proxies Internet: a paced server line, and a FIFO path that cannot reorder."""

import pytest

from wwanlab.link import Rate
from wwanlab.reproductions.gprs_proxies.network import SERVER_BPS, download, internet


def test_the_paced_internets_put_the_servers_t1_first_and_only_fifo_keeps_order() -> None:
    for kind, fifo in (("paced", False), ("fifo", True)):
        down, up = internet(kind, "down"), internet(kind, "up")
        first = down.stages[0]
        assert isinstance(first, Rate) and first.bps == SERVER_BPS
        assert not any(isinstance(s, Rate) for s in up.stages)  # ACKs are not paced
        assert down.fifo is fifo and up.fifo is fifo
    assert not internet("gaussian", "down").fifo
    with pytest.raises(ValueError, match="unknown Internet 'lan'"):
        internet("lan", "down")


def test_a_fifo_path_reorders_no_segment_and_independent_delays_do() -> None:
    fifo = download("one-user", "none", 5, net_kind="fifo")
    gaussian = download("one-user", "none", 5, net_kind="gaussian")
    assert fifo.complete and gaussian.complete
    assert fifo.once > 1000 and fifo.reordered == 0
    # back-to-back segments 0 ms apart against a 20 ms spread: many overtake
    assert gaussian.reordered > gaussian.once / 10
