"""The busy-emergent cell of the gprs-proxies network: its radio draws the emergent cell's
FTP service times, keeps the paper's PER, and carries a whole download."""

import statistics

import pytest

from wwanlab.link import HistogramDelay
from wwanlab.link.gprs_cell import emergent_cell
from wwanlab.link.gprs_radio import GprsRadioStage
from wwanlab.link.presets import GPRS_BUSY, GPRS_REFERENCE_PACKET, LLC_ACK_WAIT
from wwanlab.reproductions.gprs_proxies.network import download, radio

SEED = 2003


def test_the_radio_serves_packets_in_the_emergent_cells_ftp_service_times() -> None:
    (stage,) = radio("busy-emergent", "down", llc_ack=False, cell_seed=SEED).stages
    assert isinstance(stage, GprsRadioStage)
    model = stage.model
    assert isinstance(model.service, HistogramDelay) and model.rate_bps is None
    measured = statistics.fmean(emergent_cell(SEED).services())
    assert model.service.mean == pytest.approx(measured, abs=1e-3)
    assert model.per == GPRS_BUSY.per and model.tries == 1  # the paper's PER, no LLC resend


def test_an_llc_retransmission_costs_the_ack_wait_plus_another_emergent_draw() -> None:
    (stage,) = radio("busy-emergent", "up", llc_ack=True, cell_seed=SEED).stages
    assert isinstance(stage, GprsRadioStage)
    model = stage.model
    assert model.tries == 3 and model.llc_retry == "air"
    assert model.service is not None
    retry = model.retry_mean(GPRS_REFERENCE_PACKET)
    assert retry == pytest.approx(LLC_ACK_WAIT + model.service.mean, abs=1e-9)


def test_a_download_over_the_emergent_cell_delivers_the_whole_file() -> None:
    result = download("busy-emergent", "none", 1, cell_seed=SEED)
    assert result.complete
    # Bounded by one MSS-sized packet per mean service time (~130 ms: ~29 kbit/s).
    mean = statistics.fmean(emergent_cell(SEED).services())
    assert 0 < result.throughput_kbps < 470 * 8 / mean / 1000
