"""``wwanlab energy``: a log with nothing of the mobile's in it is refused, not 0 J."""

from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab

HEADER = "direction,size,arrival,scheduled,departure,drop\n"


@pytest.mark.parametrize(
    "rows",
    ["", "down,1500,0.100,,,queue\n"],  # no row at all; one downlink packet dropped before it
    ids=["empty", "only-a-drop"],
)
def test_a_log_without_packets_of_the_mobile_is_refused(
    rows: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + rows)
    code, out, err = wwanlab(capsys, monkeypatch, "energy", str(log), "--link", "serial-9k6")
    assert (code, out) == (2, "")
    assert (
        err == f"wwanlab: error: {str(log)!r} holds no packet of the mobile: nothing to charge\n"
    )


def test_one_received_packet_is_charged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + "down,1500,0.100,0.100,1.350,\n")
    code, out, err = wwanlab(capsys, monkeypatch, "energy", str(log), "--link", "serial-9k6")
    assert (code, err) == (0, "")
    assert "for 1 packets" in out and not out.startswith("gprs: 0.000 J")


def test_a_binary_file_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "capture.pcap"
    log.write_bytes(b"\xd4\xc3\xb2\xa1\xe2\x80" + bytes(range(256)))
    code, out, err = wwanlab(capsys, monkeypatch, "energy", str(log), "--link", "serial-9k6")
    assert (code, out) == (2, "")
    assert err.startswith(f"wwanlab: error: {str(log)!r} is not an emulator log: ")
    assert err.count("\n") == 1
