"""Snoop and Split in paper 002's GPRS network: every byte arrives once and in order
(``complete`` compares the whole file) whatever the radio and the Internet do."""

import pytest

from wwanlab.reproductions.gprs_proxies.network import download


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("proxy", ["none", "snoop", "split"])
def test_file_arrives_intact_through_each_proxy_in_the_one_user_cell(
    proxy: str, seed: int
) -> None:
    result = download("one-user", proxy, seed)
    assert result.complete
    assert 15 < result.throughput_kbps < 40  # the radio carries 37.6 kbit/s at most
    if proxy == "none":
        assert result.proxy_segments == 0
    else:
        assert result.proxy_segments > 0


def test_split_with_llc_ack_leaves_the_wireless_side_almost_nothing_to_resend() -> None:
    result = download("one-user", "split", 4, llc_ack=True)
    assert result.complete and result.proxy_data_driven + result.proxy_timer_driven <= 2


def test_snoop_resends_locally_when_the_radio_loses() -> None:
    result = download("one-user", "snoop", 5)
    assert result.complete and result.proxy_data_driven > 0
