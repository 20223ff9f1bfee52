"""The busy-emergent cell of the gprs-proxies network: its radio draws the emergent cell's
FTP service times, keeps the paper's PER, and carries a whole download."""

import statistics

import pytest

from wwanlab.link import BernoulliLoss, HistogramDelay, LinkArq, ServiceTime
from wwanlab.link.gprs_cell import emergent_cell
from wwanlab.link.presets import GPRS_BUSY, LLC_ACK_WAIT
from wwanlab.reproductions.gprs_proxies.network import download, radio

SEED = 2003


def test_the_radio_serves_packets_in_the_emergent_cells_ftp_service_times() -> None:
    service, loss = radio("busy-emergent", "down", llc_ack=False, cell_seed=SEED).stages
    assert isinstance(service, ServiceTime) and isinstance(service.service, HistogramDelay)
    measured = statistics.fmean(emergent_cell(SEED).services())
    assert service.service.mean == pytest.approx(measured, abs=1e-3)
    assert isinstance(loss, BernoulliLoss) and loss.p == GPRS_BUSY.per  # the paper's PER


def test_an_llc_retransmission_costs_the_ack_wait_plus_another_emergent_draw() -> None:
    service, arq = radio("busy-emergent", "up", llc_ack=True, cell_seed=SEED).stages
    assert isinstance(service, ServiceTime) and isinstance(arq, LinkArq)
    assert arq.max_retransmissions == 2
    assert arq.per_try_delay.mean == pytest.approx(LLC_ACK_WAIT + service.service.mean, abs=1e-3)


def test_a_download_over_the_emergent_cell_delivers_the_whole_file() -> None:
    result = download("busy-emergent", "none", 1, cell_seed=SEED)
    assert result.complete
    # Bounded by one MSS-sized packet per mean service time (~130 ms: ~29 kbit/s).
    mean = statistics.fmean(emergent_cell(SEED).services())
    assert 0 < result.throughput_kbps < 470 * 8 / mean / 1000
