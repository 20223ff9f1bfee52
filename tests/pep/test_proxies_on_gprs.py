"""Snoop and Split in paper 002's GPRS network: every byte arrives once and in order
(``complete`` compares the whole file) whatever the radio and the Internet do."""

import pytest

from wwanlab.link.presets import GPRS_LLC_BPS, GPRS_MSS
from wwanlab.reproductions.gprs_proxies.network import download


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("proxy", ["none", "snoop", "split"])
def test_file_arrives_intact_through_each_proxy_in_the_one_user_cell(
    proxy: str, seed: int
) -> None:
    result = download("one-user", proxy, seed)
    assert result.complete
    # the radio carries 48 kbit/s of LLC (paper V.1), 430 of each 470 octets the file's
    assert 15 < result.throughput_kbps < GPRS_LLC_BPS * GPRS_MSS / (GPRS_MSS + 40) / 1000
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


def test_resend_past_a_window_limited_send_is_acknowledged() -> None:
    """Regression: the Split proxy's wired window let the server send 175 octets, an RTO
    then resent a whole 430-octet segment from the same start; the highest octet sent
    stayed at the 175, so the proxy's ACK of the 430 counted as acknowledging "something
    not yet sent" (RFC 9293 3.10.7.4) and was dropped, 15 times, until the server gave
    up. The busy cell's seed 15 is the run that showed it."""
    result = download("busy", "split", 15)
    assert result.complete
