"""The emergent busy cell: the block scheduler on hand-made arrivals, the traffic sources'
means against Table 1 and UMTS 30.03, and the cell's measured delays."""

import itertools
import math
import random
import statistics

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import gprs_cell as cell
from wwanlab.link.gprs_cell import Arrival, BlockScheduler

FRAME = cell.FTP_MSS + cell.IP_TCP_HEADERS + cell.LLC_OVERHEAD  # 480 octets: 16 CS-2 blocks


class Draws(random.Random):
    """A random source answering ``random()`` from a fixed list: which blocks are lost."""

    def __init__(self, values: list[float]) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def run(arrivals: list[Arrival], **kwargs: float) -> cell.CellStats:
    return BlockScheduler(bler=0.0, **kwargs).run(arrivals, random.Random(1))  # type: ignore[arg-type]


def test_the_rlc_payload_is_cs2s_30_octets_from_12_kbit_s_per_pdch() -> None:
    assert cell.RLC_PAYLOAD == 30


def test_one_user_gets_all_four_pdchs_a_480_octet_frame_takes_4_blocks_periods() -> None:
    stats = run([Arrival(0.0, 7, FRAME, measured=True)])
    [d] = stats.delays
    assert d.service == pytest.approx(0.08) and d.sojourn == pytest.approx(0.08)
    assert (stats.blocks, stats.periods, stats.lost_blocks) == (16, 4, 0)


def test_data_arriving_inside_a_block_waits_for_the_next_block() -> None:
    [d] = run([Arrival(0.005, 0, FRAME, measured=True)]).delays
    assert d.service == pytest.approx(0.095)  # blocks 1..4 end at 0.10


def test_two_backlogged_users_share_the_pdchs_round_robin() -> None:
    stats = run([Arrival(0.0, 0, FRAME, measured=True), Arrival(0.0, 1, FRAME, measured=True)])
    assert [d.service for d in stats.delays] == [pytest.approx(0.16)] * 2
    assert stats.periods == 8


def test_a_fifth_user_waits_for_the_next_block_when_four_hold_the_pdchs() -> None:
    stats = run([Arrival(0.0, u, 30, measured=True) for u in range(5)])
    assert [round(d.service, 9) for d in stats.delays] == [0.02, 0.02, 0.02, 0.02, 0.04]


def test_a_users_second_frame_is_served_from_its_predecessors_completion() -> None:
    first, second = run(
        [Arrival(0.0, 0, FRAME, measured=True), Arrival(0.0, 0, FRAME, measured=True)]
    ).delays
    assert first.service == pytest.approx(0.08) and first.sojourn == pytest.approx(0.08)
    assert second.service == pytest.approx(0.08) and second.sojourn == pytest.approx(0.16)


def test_a_frame_begun_in_its_predecessors_last_block_is_served_from_that_block() -> None:
    # One PDCH: block 0 carries 30 of the 45 octets, block 1 the last 15 and the next 15.
    first, second = run(
        [Arrival(0.0, 0, 45, measured=True), Arrival(0.0, 0, 15, measured=True)], pdchs=1
    ).delays
    assert first.service == pytest.approx(0.04)
    assert second.service == pytest.approx(0.02)


def test_only_measured_frames_after_the_warm_up_are_recorded() -> None:
    stats = run(
        [Arrival(0.0, 0, 30, measured=True), Arrival(0.0, 1, 30), Arrival(1.0, 0, 30, True)],
        count_after=0.5,
    )
    assert [d.arrival for d in stats.delays] == [1.0]


def test_a_lost_block_is_sent_again_at_the_users_next_turn() -> None:
    scheduler = BlockScheduler(pdchs=1, bler=0.5)
    stats = scheduler.run([Arrival(0.0, 0, 30, measured=True)], Draws([0.1, 0.9]))
    assert (stats.blocks, stats.lost_blocks) == (2, 1)
    assert stats.delays[0].service == pytest.approx(0.04)


def test_measured_block_error_ratio_is_the_configured_one_within_4_standard_errors() -> None:
    stats = BlockScheduler(bler=0.3).run(
        [Arrival(0.0, 0, 30 * 4000, measured=True)], random.Random(5)
    )
    p = stats.lost_blocks / stats.blocks
    assert abs(p - 0.3) < 4 * math.sqrt(0.3 * 0.7 / stats.blocks)
    assert stats.blocks - stats.lost_blocks == 4000


@pytest.mark.parametrize("bad", [{"bler": 1.0}, {"bler": -0.1}, {"pdchs": 0}, {"period": 0.0}])
def test_bad_scheduler_parameters_are_usage_errors(bad: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        BlockScheduler(**bad)  # type: ignore[arg-type]


# --- the sources ---------------------------------------------------------------------------


def _rate_within_4_se(count: int, rate_per_hour: float, hours: float) -> bool:
    expected = rate_per_hour * hours  # Poisson: variance = mean
    return abs(count - expected) < 4 * math.sqrt(expected)


def test_email_messages_arrive_5_an_hour_with_the_assumed_mean_size() -> None:
    hours = 2000.0
    mails = list(cell.email_source(0, hours * cell.HOUR, random.Random(11)))
    assert _rate_within_4_se(len(mails), cell.EMAIL_PER_HOUR, hours)
    # E[octets] = E[S] + 50 E[ceil(S / 1460)] for exponential S: sd of S is its mean.
    mean = cell.EMAIL_MEAN_OCTETS
    per_packet = cell.IP_TCP_HEADERS + cell.LLC_OVERHEAD
    expected = mean + per_packet / (1 - math.exp(-cell.MTU_PAYLOAD / mean))
    measured = statistics.fmean(m.octets for m in mails)
    assert abs(measured - expected) < 4 * mean / math.sqrt(len(mails))
    assert not any(m.measured for m in mails)


def test_www_sessions_arrive_3_an_hour_each_page_25_datagrams_on_average() -> None:
    hours = 400.0
    starts = list(
        cell.poisson_times(cell.WWW_SESSIONS_PER_HOUR, hours * cell.HOUR, random.Random(3))
    )
    assert _rate_within_4_se(len(starts), cell.WWW_SESSIONS_PER_HOUR, hours)
    rng = random.Random(4)
    for mean in (cell.WWW_PAGES_PER_SESSION, cell.WWW_DATAGRAMS_PER_PAGE):
        draws = [cell.geometric(mean, rng) for _ in range(100_000)]
        sd = math.sqrt(mean * (mean - 1))  # geometric on 1, 2, ...: variance (1-p)/p^2
        assert min(draws) == 1
        assert abs(statistics.fmean(draws) - mean) < 4 * sd / math.sqrt(len(draws))


def test_www_datagram_sizes_have_umts_30_03s_mean_of_about_480_octets() -> None:
    assert cell.pareto_datagram_mean() == pytest.approx(480, abs=1)
    rng = random.Random(9)
    sizes = [cell.pareto_datagram(rng) for _ in range(200_000)]
    assert min(sizes) >= 81 and max(sizes) <= cell.WWW_PARETO_M
    # sd of the cut-off Pareto is about 1850 octets: 4 standard errors are ~17 octets,
    # and int() truncates half an octet on average.
    assert statistics.fmean(sizes) == pytest.approx(cell.pareto_datagram_mean() - 0.5, abs=17)


def test_www_datagrams_of_a_session_are_spaced_by_gaps_and_reading_times() -> None:
    arrivals = list(cell.www_source(2, 200 * cell.HOUR, random.Random(8)))
    gaps = [b.t - a.t for a, b in itertools.pairwise(arrivals) if b.t > a.t]
    assert all(a.user == 2 for a in arrivals)
    # Most gaps are the 0.125 s datagram gaps; the median of an exponential is mean * ln 2.
    median = statistics.median(gaps)
    assert median == pytest.approx(cell.WWW_DATAGRAM_GAP * math.log(2), rel=0.05)


def test_an_ftp_file_is_the_papers_512_kb_in_mss_segments_at_the_gb_rate() -> None:
    packets = cell.ftp_packets()
    assert len(packets) == 1220 and packets[:-1] == [470] * 1219
    assert sum(packets) - 40 * len(packets) == cell.FTP_FILE
    hours = 300.0
    arrivals = list(cell.ftp_source(1, hours * cell.HOUR, random.Random(6)))
    files = len(arrivals) // len(packets)
    assert len(arrivals) == files * len(packets)
    assert _rate_within_4_se(files, cell.FTP_PER_HOUR, hours)
    assert arrivals[1].t - arrivals[0].t == pytest.approx(470 * 8 / 64_000)
    assert all(a.measured and a.octets == 480 for a in arrivals[:-1:1220])


def test_the_busy_cell_has_8_email_4_www_and_3_ftp_users() -> None:
    arrivals = cell.busy_cell_arrivals(3 * cell.HOUR, random.Random(2))
    assert cell.EMAIL_USERS + cell.WWW_USERS + cell.FTP_USERS == cell.USERS == 15
    ftp = {a.user for a in arrivals if a.measured}
    assert ftp <= {12, 13, 14} and max(a.user for a in arrivals) <= 14
    assert [a.t for a in arrivals] == sorted(a.t for a in arrivals)


# --- the cell --------------------------------------------------------------------------------


def test_a_lone_ftp_user_gets_80_ms_per_packet_like_the_papers_one_user_cell() -> None:
    arrivals = [
        Arrival(t, 0, size + 10, True)
        for t, size in zip([i * 0.0001 for i in range(1220)], cell.ftp_packets(), strict=True)
    ]
    services = [round(d.service, 9) for d in run(arrivals).delays]
    assert services[1:-1] == [0.08] * 1218  # paper 002 V: 80-120 ms with one user
    assert services[-1] == 0.04  # the file's last 168 octets: 6 blocks


def test_the_busy_cell_is_deterministic_and_loses_blocks_at_its_bler() -> None:
    a, b = cell.run_busy_cell(7, hours=0.5), cell.run_busy_cell(7, hours=0.5)
    assert a.delays == b.delays and a.delays
    p = a.lost_blocks / a.blocks
    assert abs(p - cell.BLER) < 4 * math.sqrt(cell.BLER * (1 - cell.BLER) / a.blocks)
    assert min(a.services()) >= cell.BLOCK_PERIOD - 1e-9


def test_histogram_bins_are_centred_on_block_multiples_and_keep_the_mean() -> None:
    h = cell.histogram_of([0.08, 0.08, 0.16])
    assert h.edges == pytest.approx([0.07, 0.09, 0.11, 0.13, 0.15, 0.17])
    assert h.weights == [2, 0, 0, 0, 1]
    assert h.mean == pytest.approx((0.08 * 2 + 0.16) / 3)
    services = cell.run_busy_cell(3, hours=0.5).services()
    assert cell.histogram_of(services).mean == pytest.approx(statistics.fmean(services), abs=1e-3)


def test_utilisation_is_the_share_of_all_blocks_that_carried_data() -> None:
    stats = run([Arrival(0.0, 0, 30), Arrival(0.1, 0, 30)], pdchs=2)
    assert stats.end == pytest.approx(0.12)  # periods 0 and 5 served: 6 periods, 12 blocks
    assert stats.utilisation == pytest.approx(2 / 12)


def test_a_full_bss_buffer_discards_the_frame_that_does_not_fit() -> None:
    arrivals = [Arrival(0.0, 0, FRAME, True), Arrival(0.0, 0, FRAME, True)]
    stats = run(arrivals, buffer=2 * FRAME - 1)
    assert (stats.offered, stats.discarded, len(stats.delays)) == (2, 1, 1)
    assert stats.per == 0.5
    assert run(arrivals, buffer=2 * FRAME).discarded == 0


def test_a_window_limited_file_sends_its_third_packet_when_the_first_ack_returns() -> None:
    # Initial window 2: packets 1 and 2 cross the Gb link at 64 kbit/s (58.75 ms each);
    # packet 1 is carried in blocks 3-6 (ends 0.14 s), its ACK is back ACK_RETURN later,
    # and packet 3 then crosses the Gb link.
    stats = run([Arrival(0.0, 0, 3 * cell.FTP_MSS, True, file=True)], buffer=10**6)
    gb = (cell.FTP_MSS + cell.IP_TCP_HEADERS) * 8 / cell.GB_BPS
    assert [round(d.arrival, 6) for d in stats.delays] == [
        round(gb, 6),
        round(2 * gb, 6),
        round(0.14 + cell.ACK_RETURN + gb, 6),
    ]
    assert stats.offered == 3 and stats.discarded == 0


def test_a_discard_halves_the_window_and_the_packet_is_sent_again() -> None:
    stats = run([Arrival(0.0, 0, 40 * cell.FTP_MSS, True, file=True)], buffer=3 * FRAME)
    assert stats.discarded > 0
    assert len(stats.delays) == 40  # every packet delivered once in the end
    assert stats.offered == 40 + stats.discarded


def test_delayed_acks_make_one_uplink_burst_per_two_frames_of_a_user() -> None:
    deliveries = [(0.1, 0), (0.2, 1), (0.3, 0), (0.4, 1), (0.5, 0)]
    assert cell.uplink_bursts(deliveries) == [(0.3, 0), (0.4, 1)]


class Slot(random.Random):
    """Every access try picks the first slot it may use."""

    def randrange(self, *args: object, **kwargs: object) -> int:
        return 0


def test_a_lone_request_is_granted_in_the_block_after_its_slot() -> None:
    a = cell.random_access([(0.0, 0)], Slot(), 6)
    assert a.delays == [cell.GRANT_DELAY] and a.failed == 0 and a.attempts == 1


def test_requests_that_always_collide_retry_after_the_agn_wait_and_are_lost_after_0_3_s() -> None:
    a = cell.random_access([(0.0, 0), (0.0, 1)], Slot(), 6)
    # tries at 0, 0.1 and 0.2 s; a fourth would start after Table 1's 0.3 s budget
    assert (a.attempts, a.collisions, a.failed, a.delays) == (6, 6, 2, [])
    assert a.failure_ratio == 1.0
    with pytest.raises(UsageError, match="prach_blocks"):
        cell.random_access([], Slot(), 3)


def test_the_busy_cells_access_slots_are_table_1s_prach_configurations() -> None:
    assert cell.PRACH_BLOCKS == (0, 6)
    per, span = cell.ACCESS_SLOTS[6]
    assert per / span == pytest.approx(100.0)  # 24 access bursts per 240 ms
    per, span = cell.ACCESS_SLOTS[0]
    assert per / span == pytest.approx(51 / (51 * 0.120 / 26))  # one per TDMA frame
