import os
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import wwanlab
from wwanlab.report import (
    Assumptions,
    ClaimsTable,
    Figure,
    Folded,
    Links,
    Params,
    ReportPage,
    Section,
    Table,
    Text,
    write_index,
)
from wwanlab.report.html import part_verdicts, verdict
from wwanlab.report.plots import (
    PROTOCOL_COLOURS,
    SPARE_STYLE,
    bar_plot,
    cdf_plot,
    line_plot,
    loss_style,
    protocol_colour,
)
from wwanlab.report.provenance import RunInfo, cpu_model, git_commit

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


def test_claim_in_parts_names_what_held(tmp_path: Path) -> None:
    parts = (Part("WTP knee", True, "12 KB ≤ 13.5 KB"), Part("TCP knee", False, "19 KB < 33.5"))
    partly = Claim("stable at 12 KB, TCP after 35 KB", "12 / 35", "see parts", False, parts)
    none = Claim("x", "1", "2", False, (Part("a", False, ""),))
    assert verdict(partly) == "partly holds" and verdict(none) == "does not hold"
    assert part_verdicts(partly) == [
        "WTP knee holds (12 KB ≤ 13.5 KB)",
        "TCP knee does not (19 KB < 33.5)",
    ]
    html = ClaimsTable([partly]).render(tmp_path)
    assert '<span class="partly">partly holds</span>' in html
    assert '<li class="holds">WTP knee holds (12 KB ≤ 13.5 KB)</li>' in html
    assert '<li class="fails">TCP knee does not (19 KB &lt; 33.5)</li>' in html


def test_folded_links_and_index_front(tmp_path: Path) -> None:
    folded = Folded("Per point <raw>", [Table(["a"], [[1]])])
    assert folded.render(tmp_path) == (
        "<details><summary>Per point &lt;raw&gt;</summary>\n"
        '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td class="num">1</td></tr>'
        "</tbody></table>\n</details>"
    )
    links = Links([("runs.csv", "runs.csv")], "Every run:")
    assert (
        links.render(tmp_path)
        == '<p>Every run:</p><ul><li><a href="runs.csv">runs.csv</a></li></ul>'
    )
    page = ReportPage("P", [Section("s", [Text("x")])], slug="p")
    index = write_index(tmp_path, [page], front=[Text("1 of 5 papers reproduced")]).read_text()
    assert index.index("1 of 5 papers reproduced") < index.index('href="p.html"')


def test_styles_are_one_colour_per_protocol_and_one_line_per_loss() -> None:
    assert protocol_colour("wap") == "tab:blue" and protocol_colour("http-sack") == "tab:red"
    assert protocol_colour("wwp") == protocol_colour("wwp")  # a spare one, fixed by the name
    assert protocol_colour("wwp") not in PROTOCOL_COLOURS.values()
    assert loss_style(0.0) == "-" and loss_style(0.10) == "--" and loss_style(0.1) == "--"
    assert loss_style(0.37) == SPARE_STYLE


def test_run_info_outside_a_checkout_and_from_cpuinfo(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "wwanlab"
    package.mkdir(parents=True)
    assert git_commit(package) == "unknown"
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Example CPU @ 2.0GHz\n")
    assert cpu_model(cpuinfo) == "Example CPU @ 2.0GHz"
    run = RunInfo.collect("quick", 86_400.0, now=86_412.5)
    assert (run.date, run.mode, run.seconds) == ("1970-01-02T00:00:00Z", "quick", 12.5)
    values = run.block().values
    assert values["run time"] == "12.5 s" and values["wwanlab version"] == wwanlab.__version__
    assert str(values["machine"]).startswith(f"{os.cpu_count()} cores, ")
    load = replace(run, load=(1.5, 0.25, 2.0)).block().values["machine load"]
    assert load == "1.50, 0.25, 2.00 (1, 5 and 15 min averages, at the end of the run)"
    assert replace(run, load=None).block().values["machine load"] == "unknown"
    assert run.load is not None and len(run.load) == 3 and min(run.load) >= 0  # Linux keeps one


def test_run_info_reads_the_commit_of_this_checkout() -> None:
    here = Path(wwanlab.__file__).parent
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert git_commit().split(" ")[0] == head.stdout.strip()
