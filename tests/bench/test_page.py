"""The transports page and its target verdicts, on summaries built by hand."""

import pytest

from wwanlab.bench.page import LinkResult, target_verdicts, transports_page
from wwanlab.report.provenance import RunInfo

C = 7639.0


def _summary(goodputs: dict[str, dict[int, float]]) -> list[dict[str, object]]:
    rows = []
    for transport, by_size in goodputs.items():
        ours = transport.startswith("wtp")
        family = "WTP/WSP" if ours else "kernel TCP" if transport.startswith("tcp") else "QUIC"
        for size, goodput in by_size.items():
            rows.append(
                {"link": "serial-9k6", "loss": 0.1, "transport": transport, "family": family,
                 "ours": ours, "size": size, "runs": 3, "failed": 0, "goodput_bps": goodput,
                 "goodput_p10": goodput * 0.9, "goodput_p90": goodput * 1.1,
                 "pct_c": 100 * goodput / C, "pct_c_loss": 100 * goodput / (0.9 * C),
                 "completion_s": size * 8 / goodput, "handshake_s": 0.1,
                 "bytes_up": 100, "bytes_down": size}
            )  # fmt: skip
    return rows


def test_target_holds_only_when_both_halves_hold():
    summary = _summary(
        {
            "wtp-paper": {4000: 5000.0, 12000: 6600.0, 33500: 6700.0},
            "wtp-tuned": {4000: 5200.0, 12000: 6400.0, 33500: 6400.0},
            "tcp-cubic": {4000: 5100.0, 12000: 6000.0, 33500: 6000.0},
            "quic-reno": {4000: 9000.0, 12000: 9000.0, 33500: 9000.0},  # not ours, not kernel
        }
    )
    reach, ahead = target_verdicts(LinkResult("serial-9k6", 0.1, C, summary))
    assert reach.holds  # 6600/7639 = 86.4%, 6700/7639 = 87.7%
    assert reach.ours == "12000 B: wtp-paper 86.4%; 33500 B: wtp-paper 87.7%"
    assert ahead.holds
    assert ahead.ours.startswith("4000 B: wtp-tuned 5200 vs tcp-cubic 5100 bit/s")

    summary = _summary(
        {"wtp-paper": {4000: 4000.0, 12000: 6400.0}, "tcp-cubic": {4000: 5100.0, 12000: 6000.0}}
    )
    reach, ahead = target_verdicts(LinkResult("serial-9k6", 0.1, C, summary))
    assert not reach.holds and reach.ours == "12000 B: wtp-paper 83.8%"
    assert not ahead.holds


def test_page_has_the_target_a_plot_and_a_table_per_link(tmp_path):
    summary = _summary({"wtp-paper": {4000: 5000.0, 12000: 6600.0}, "tcp-reno": {4000: 5.0}})
    results = [
        LinkResult("serial-9k6", 0.1, C, summary),
        LinkResult("gprs-busy", 0.03277, 2685.7, summary),
    ]
    run = RunInfo.collect("quick", 1767322800.0, now=1767322812.5)
    page = transports_page(results, tmp_path, [{"transport": "wtp-paper"}], {"seed": 1}, run)
    page.write(tmp_path)
    html = (tmp_path / "transports.html").read_text()
    assert html.count("does not hold") + html.count('class="holds"') == 2
    assert "serial-9k6 at 10% loss" in html and "gprs-busy at 3% loss" in html
    for name in ("transports-serial-9k6-10.png", "transports-gprs-busy-3.png"):
        assert (tmp_path / "figures" / name).stat().st_size > 1000
    assert [c.claim.split(" ")[3] for c in page.claims] == ["reaches", "is"]
    assert "2026-01-02T03:00:00Z" in html and "12.5 s" in html


@pytest.mark.parametrize("link", [("serial-9k6", 0.0), ("gprs-busy", 0.1)])
def test_no_target_on_other_links(tmp_path, link):
    result = LinkResult(link[0], link[1], C, _summary({"wtp-paper": {4000: 1.0}}))
    page = transports_page([result], tmp_path, [], {})
    assert page.claims == []


def test_the_page_says_whether_c_1_p_bounds_goodput(tmp_path):
    summary = _summary({"wtp-paper": {4000: 1.0}})
    nistnet = LinkResult("serial-9k6", 0.1, C, summary, loss_before_line=0.1)
    air = LinkResult("serial-9k6-air", 0.1, C, summary)
    assert nistnet.loss_note().startswith("All of the 10.0% loss is dropped before the line")
    assert "can exceed 100% of C(1-p), up to C" in nistnet.loss_note()
    assert "C(1-p) bounds every transport's long-run goodput" in air.loss_note()
    assert LinkResult("serial-9k6", 0.0, C, summary).loss_note().startswith("No loss")
    gprs = LinkResult("gprs-busy", 0.03277, 2685.7, summary, loss_before_line=0.01)
    assert gprs.loss_note().startswith("1.0% of the 3.3% loss is dropped before the line")
    assert "NISTNet" not in gprs.loss_note() and "NISTNet" in nistnet.loss_note()
    transports_page([nistnet, air], tmp_path, [{"transport": "wtp-paper"}], {}).write(tmp_path)
    html = (tmp_path / "transports.html").read_text()
    assert "can exceed 100% of C(1-p), up to C" in html
    assert "C(1-p) bounds every transport&#x27;s long-run goodput" in html
