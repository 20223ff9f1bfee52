from dataclasses import dataclass
from pathlib import Path

from wwanlab.report import (
    Assumptions,
    ClaimsTable,
    Figure,
    Params,
    ReportPage,
    Section,
    Table,
    Text,
    write_index,
)
from wwanlab.report.plots import bar_plot, cdf_plot, line_plot

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Part:
    what: str
    holds: bool
    ours: str


@dataclass(frozen=True)
class Claim:
    claim: str
    paper: str
    ours: str
    holds: bool
    parts: tuple[Part, ...] = ()


def test_plots_write_deterministic_pngs(tmp_path: Path) -> None:
    a = cdf_plot({"down": [3.0, 1.0, 2.0], "up": [1.5]}, tmp_path / "a.png", xlabel="ms")
    b = cdf_plot({"down": [3.0, 1.0, 2.0], "up": [1.5]}, tmp_path / "b.png", xlabel="ms")
    assert a.read_bytes()[:8] == PNG_MAGIC
    assert a.read_bytes() == b.read_bytes()
    line = line_plot(
        [0, 1],
        {"ours": [1, 2]},
        tmp_path / "l.png",
        xlabel="x",
        ylabel="y",
        paper={"WTP": [1.1, 2.2]},
    )
    bars = bar_plot(["a", "b"], {"s": [1, 2], "t": [2, 1]}, tmp_path / "c.png", ylabel="y")
    assert line.read_bytes()[:8] == PNG_MAGIC and bars.read_bytes()[:8] == PNG_MAGIC


def test_page_and_index(tmp_path: Path) -> None:
    out = tmp_path / "report"
    inside = cdf_plot({"d": [1.0, 2.0]}, out / "figures" / "cdf.png", xlabel="ms")
    elsewhere = cdf_plot({"d": [1.0]}, tmp_path / "elsewhere.png", xlabel="ms")
    claims = [
        Claim("WTP beats TCP <by> 16%", "16–107 % (Table 3)", "21 %", True),
        Claim("Loss halves goodput", "50 %", "31 %", False),
    ]
    page = ReportPage(
        "WAP vs HTTP",
        [
            Section("Setup", [Text("a & b"), Params({"loss": 0.1}), Assumptions(["MTU 1500"])]),
            Section(
                "Results",
                [
                    Table.from_rows([{"a": 1, "b": 0.1234567891}, {"a": 2}]),
                    Figure(inside, "CDF"),
                    Figure(elsewhere, "other"),
                ],
            ),
            Section("Claims", [ClaimsTable(claims)]),
        ],
        summary="paper 000",
    )
    assert page.slug == "wap-vs-http"
    index = write_index(out, [page])
    text = (out / "wap-vs-http.html").read_text()
    assert "<p>a &amp; b</p>" in text
    assert '<td class="num">0.123457</td>' in text
    assert "<td></td>" in text  # the missing cell of row 2
    assert 'src="figures/cdf.png"' in text
    assert (out / "figures" / "elsewhere.png").read_bytes() == elsewhere.read_bytes()
    assert "WTP beats TCP &lt;by&gt; 16%" in text
    assert text.count('class="holds"') == 1 and text.count('class="fails"') == 1
    listing = index.read_text()
    assert '<a href="wap-vs-http.html">WAP vs HTTP</a>' in listing
    assert "1 of 2 hold" in listing


def test_index_accumulates_pages_written_by_separate_calls(tmp_path: Path) -> None:
    out = tmp_path / "report"
    probe = ReportPage("Probe", [Section("s", [Text("x")])], slug="probe")
    first = ReportPage("Paper A", [Section("c", [ClaimsTable([Claim("c", "1", "1", True)])])])
    write_index(out, [probe])
    write_index(out, [first])
    listing = (out / "index.html").read_text()
    assert listing.index('href="probe.html"') < listing.index('href="paper-a.html"')
    assert "1 of 1 hold" in listing
    # a page written again replaces its entry; a page whose file is gone is dropped
    again = ReportPage("Paper A", [Section("c", [ClaimsTable([Claim("c", "1", "2", False)])])])
    (out / "probe.html").unlink()
    write_index(out, [again])
    listing = (out / "index.html").read_text()
    assert "probe.html" not in listing
    assert listing.count('href="paper-a.html"') == 1 and "0 of 1 hold" in listing
