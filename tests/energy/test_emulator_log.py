"""Energy from the emulator's per-packet log: a hand-made log with exact joules, the
command's output and bad input, and a log of a real ``wwanlab emulate`` run."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.emu.leftovers import can_emulate
from tests.experiments.invoke import wwanlab

from wwanlab.emu.capture import LOG_COLUMNS, read_log
from wwanlab.energy import get_model
from wwanlab.energy.emulator_log import log_energy, read_log_energy
from wwanlab.link.presets import get_preset

SERIAL = get_preset("serial-9k6")
WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def serial_air(octets: int) -> float:
    """Seconds on serial-9k6: IP octets plus 8 of PPP, 10 bits each, at 9600 bit/s."""
    return (octets + 8) * 10 / 9600


def write_log(path: Path, rows: list[str]) -> Path:
    path.write_text(",".join(LOG_COLUMNS) + "\n" + "".join(r + "\n" for r in rows))
    return path


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_log(
        tmp_path / "log.csv",
        [
            "up,1000,100.000000,100.500000,100.600000,",  # sent: on the air 100-101.05
            "down,500,103.000000,103.900000,104.000000,",  # reached the mobile at 104
            "down,500,103.500000,,,loss:bernoulli",  # lost on the way: never received
            "up,40,104.000000,,,loss:bernoulli",  # sent, then lost: the radio sent it
        ],
    )


# gprs: transmit 1 W, receive 0.5 W, a 6 s tail at 0.25 W (docs/energy.md)
RX_START = 104 - serial_air(500)
TX2_START = 104.0  # after the reception, which the send overlaps by nothing
EXPECTED = {
    "tx": serial_air(1000) + serial_air(40),
    "rx": serial_air(500),
    "tail": (RX_START - (100 + serial_air(1000))) + 6.0,
}
EXPECTED_J = EXPECTED["tx"] * 1.0 + EXPECTED["rx"] * 0.5 + EXPECTED["tail"] * 0.25


def test_a_hand_made_log_gives_exact_joules(log: Path) -> None:
    found = read_log_energy(log, get_model("gprs"), SERIAL, SERIAL)
    report = found.report
    assert found.packets == 3
    assert (found.delivered_up, found.delivered_down) == (1000, 500)
    for state, seconds in EXPECTED.items():
        assert report.seconds[state] == pytest.approx(seconds, abs=1e-9), state
    assert report.seconds["promotion"] == report.seconds["idle"] == 0.0
    assert report.joules == pytest.approx(EXPECTED_J, abs=1e-9)
    assert report.per_megabyte(1500) == pytest.approx(EXPECTED_J / (1500 / (1 << 20)))


def test_the_command_prints_joules_states_and_j_per_mb(
    log: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = wwanlab(
        capsys, monkeypatch, "energy", str(log), "--link", "serial-9k6", "--json"
    )
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["joules"] == pytest.approx(EXPECTED_J, abs=1e-9)
    assert result["per_mb_of"] == 1500
    assert result["j_per_mb"] == pytest.approx(EXPECTED_J / (1500 / (1 << 20)))
    assert result["seconds"]["rx"] == pytest.approx(EXPECTED["rx"])
    code, out, _ = wwanlab(
        capsys, monkeypatch, "energy", str(log), "--link", "serial-9k6", "--delivered", "1048576"
    )
    assert code == 0 and out.startswith(f"gprs: {EXPECTED_J:.3f} J for 3 packets, ")
    assert f"{EXPECTED_J:.3f} J/MB of 1048576 octets" in out
    code, out, _ = wwanlab(
        capsys,
        monkeypatch,
        "energy",
        str(log),
        "--link",
        "serial-9k6",
        "--model",
        "umts",
        "--json",
    )
    assert code == 0 and json.loads(out)["seconds"]["promotion"] == 2.0  # Qian et al.


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--link", "serial-9k6", "--model", "5g"], "unknown radio model '5g'"),
        (["--link", "nosuch"], "nosuch"),
        (["--link", "serial-9k6", "--delivered", "0"], "--delivered must be positive"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    args: list[str],
    message: str,
    log: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "energy", str(log), *args)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and message in err


def test_a_file_that_is_not_a_log_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    for path in (bad, tmp_path / "missing.csv"):
        code, out, err = wwanlab(capsys, monkeypatch, "energy", str(path), "--link", "serial-9k6")
        assert (code, out) == (2, "") and err.count("\n") == 1


@can_emulate
def test_the_log_of_a_real_emulated_run(tmp_path: Path) -> None:
    """Three 500-octet UDP datagrams sent up a real emulated serial line: the mobile
    transmits each for its whole serialization, whatever else the log holds."""
    log = tmp_path / "log.csv"
    send = (
        "import os, socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "[s.sendto(bytes(500), (os.environ['WWANLAB_HOST'], 9)) for _ in range(3)]; "
        "import time; time.sleep(2.5)"
    )
    done = subprocess.run(
        [WWANLAB, "emulate", "--link", "serial-9k6", "--log", str(log), "--",
         sys.executable, "-c", send],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = read_log(log)
    ours = [r for r in rows if r.direction == "up" and r.size == 528]  # + UDP and IP headers
    assert len(ours) == 3
    found = log_energy(rows, get_model("gprs"), SERIAL, SERIAL)
    up = sum(serial_air(r.size) for r in rows if r.direction == "up")
    down = [r for r in rows if r.direction == "down" and r.departure is not None]
    assert found.report.seconds["tx"] == pytest.approx(up, abs=1e-6)  # Unix times: 0.2 µs
    assert found.report.seconds["tx"] >= 3 * serial_air(528) - 1e-6
    assert found.packets == len([r for r in rows if r.direction == "up"]) + len(down)
    assert found.report.seconds["tail"] >= 6.0  # the tail after the last packet
    command = subprocess.run(
        [WWANLAB, "energy", str(log), "--link", "serial-9k6", "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(command.stdout)["joules"] == pytest.approx(found.report.joules)
