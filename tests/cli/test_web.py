import json
from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab


def test_json_download_of_a_site(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["web", "mail", "--link", "gprs-3plus1", "--seed", "3", "--json"]
    code, out, err = wwanlab(capsys, monkeypatch, *args)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["page"] == "mail" and doc["seed"] == 3 and doc["complete"] is True
    assert (
        doc["failures"] == [] and len(doc["objects"]) == 11
    )  # Table 1: 11, the main document included
    assert sum(doc["breakdown_percent"].values()) == pytest.approx(100.0)
    assert sum(doc["breakdown_s"].values()) == pytest.approx(doc["total_time_s"])
    assert doc["dns_queries"] == len(doc["lookups"])
    assert doc["throughput_bps"] == pytest.approx(doc["body_bytes"] * 8 / doc["total_time_s"])
    code, again, _ = wwanlab(capsys, monkeypatch, *args)
    assert again == out  # the same seed, the same download


def test_options_and_strategy_change_the_download(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ["web", "mail", "--json", "--strategy", "opt", "--connections", "3"]
    plain = json.loads(wwanlab(capsys, monkeypatch, *base)[1])
    code, out, err = wwanlab(capsys, monkeypatch, *base, "--opt", "url-rewrite")
    assert (code, err) == (0, "")
    rewritten = json.loads(out)
    assert rewritten["options"] == ["url-rewrite"] and rewritten["complete"]
    assert plain["dns_queries"] == 4 and rewritten["dns_queries"] == 1  # Table 1: 4 domains
    assert rewritten["tcp_connections"] == 3


def test_text_output_and_plots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    png, svg = tmp_path / "t.png", tmp_path / "sub" / "t.svg"
    code, out, err = wwanlab(capsys, monkeypatch, "web", "altavista", "--plot", str(png))
    assert (code, err) == (0, "")
    assert "altavista over gprs-3plus1, http1.1, seed 1" in out
    for label in ("Payload", "DNS", "TCP 3W/SS", "Under-utilization"):
        assert label in out
    assert "all 4 objects arrived" in out and f"plot: {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = wwanlab(capsys, monkeypatch, "web", "altavista", "--plot", str(svg))
    assert code == 0 and svg.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchsite"], "'nosuchsite' is neither a site"),
        (["mail", "--opt", "dns-boost,zip"], "unknown option 'zip'"),
        (["mail", "--strategy", "spdy"], "unknown strategy 'spdy'"),
        (["mail", "--link", "carrier-pigeon"], "unknown link preset 'carrier-pigeon'"),
        (["mail", "--loss", "1.5"], "--loss must be a probability"),
        (["mail", "--connections", "0"], "connections must be at least 1"),
        (["mail", "--plot", "t.gif"], "name a .png or .svg file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "web", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_page_folder_and_unreadable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text('<html><img src="a.gif"><img src="b/c.gif"></html>')
    (folder / "a.gif").write_bytes(b"GIF89a" + bytes(500))
    (folder / "b").mkdir()
    (folder / "b" / "c.gif").write_bytes(b"GIF89a" + bytes(900))
    code, out, err = wwanlab(capsys, monkeypatch, "web", str(folder), "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["complete"] and len(doc["objects"]) == 3 and doc["dns_queries"] == 1
    bad = tmp_path / "bad.har"
    bad.write_text("{ not json")
    code, out, err = wwanlab(capsys, monkeypatch, "web", str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err


def _har(url: str, html: str) -> str:
    entry = {
        "request": {"method": "GET", "url": url, "headers": []},
        "response": {
            "status": 200,
            "content": {"size": len(html), "mimeType": "text/html", "text": html},
        },
    }
    return json.dumps({"log": {"version": "1.2", "entries": [entry]}})


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "page.har",
            _har("http://example.com/", '<img src="http://[::1/x.png">'),
            "page.har: <img> embeds 'http://[::1/x.png': Invalid IPv6 URL",
        ),
        (
            "page.har",
            _har("http://[::1/", "<p>hi</p>"),
            "log.entries[0].request.url is not a URL: 'http://[::1/'",
        ),
        (
            "folder/index.html",
            '<script src="//[fe80::1/a.js"></script>',
            "folder: <script> embeds '//[fe80::1/a.js': Invalid IPv6 URL",
        ),
    ],
)
def test_a_url_the_parser_rejects_is_one_line(
    name: str,
    text: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    file = tmp_path / name
    file.parent.mkdir(exist_ok=True)
    file.write_text(text)
    where = file if name.endswith(".har") else file.parent
    code, out, err = wwanlab(capsys, monkeypatch, "web", str(where))
    assert (code, out) == (2, "")
    assert err.startswith("wwanlab: error: ") and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(
    ("plot", "message"),
    [
        ("/proc/wwanlab-test.png", "--plot '/proc/wwanlab-test.png': cannot write there"),
        ("{tmp}", "name a .png or .svg file"),
        ("{tmp}/a-folder.png", "--plot '{tmp}/a-folder.png' is a folder, not a file"),
    ],
)
def test_a_plot_that_cannot_be_written_is_refused_before_the_download(
    plot: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "a-folder.png").mkdir()
    plot, message = plot.format(tmp=tmp_path), message.format(tmp=tmp_path)
    code, out, err = wwanlab(capsys, monkeypatch, "web", "mail", "--plot", plot)
    assert (code, out) == (2, "")
    assert err.startswith("wwanlab: error: ") and message in err and err.count("\n") == 1


def test_a_binary_file_is_named_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "page.har"
    file.write_bytes(b"\xd4\xc3\xb2\xa1\xe2\x80\xff")
    code, out, err = wwanlab(capsys, monkeypatch, "web", str(file))
    assert (code, out) == (2, "")
    assert err == f"wwanlab: error: {file}: not a HAR file: not UTF-8 text\n"
