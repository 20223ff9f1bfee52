"""``wwanlab emulate`` as a user runs it: exit status, nesting, bad input, and total
cleanup after a normal exit, Ctrl-C, SIGTERM, ``kill -9`` of the command and of wwanlab."""

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.emu.leftovers import can_emulate, gone, leftovers, stale_tables, wait_clean
from tests.experiments.invoke import wwanlab

from wwanlab.emu import instances, netns

pytestmark = can_emulate

WWANLAB = str(Path(sys.executable).parent / "wwanlab")
# What the command inside reports about itself: the host address and its namespace.
REPORT = 'echo "$WWANLAB_HOST $(stat -L -c "%d %i" /proc/self/ns/net) $$" > {file}'


def refuse() -> None:
    raise PermissionError(errno.EPERM, "Operation not permitted")


def emulate(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [WWANLAB, "emulate", *args], capture_output=True, text=True, timeout=60, **kwargs
    )


def read_report(path: Path, timeout: float = 20) -> tuple[str, tuple[int, int], int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            host, dev, ino, pid = path.read_text().split()
            return host, (int(dev), int(ino)), int(pid)
        time.sleep(0.02)
    raise AssertionError(f"the command inside never wrote {path}")


def test_exit_status_environment_and_summary(tmp_path):
    report = tmp_path / "report"
    done = emulate(
        "--link", "serial-9k6", "--", "sh", "-c", REPORT.format(file=report) + "; exit 7"
    )
    assert done.returncode == 7
    host, ns, _ = read_report(report)
    assert host.startswith("100.") and int(host.rsplit(".", 1)[1]) % 4 == 1  # .1 of a /30
    assert done.stdout == ""  # the command's stdout is its own
    assert done.stderr.startswith("wwanlab emulate: serial-9k6: down 0 packets")
    assert leftovers(host, ns) == []


def test_missing_command_is_127_and_json_summary_goes_to_stderr():
    done = emulate("--link", "gprs-one-user", "--json", "--", "/no/such/program")
    assert done.returncode == 127
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith('{"downlink": "gprs-one-user"')
    assert done.stdout == ""


def test_nested_emulators_each_add_a_link(tmp_path):
    outer, inner = tmp_path / "outer", tmp_path / "inner"
    script = tmp_path / "inner.sh"
    script.write_text(REPORT.format(file=inner) + "\nexit 5\n")
    done = emulate(
        "--link",
        "serial-9k6",
        "--",
        "sh",
        "-c",
        REPORT.format(file=outer) + f"; {WWANLAB} emulate --link gprs-one-user -- sh {script}",
    )
    assert done.returncode == 5, done.stderr
    outer_host, outer_ns, _ = read_report(outer)
    inner_host, inner_ns, _ = read_report(inner)
    assert outer_host != inner_host and outer_ns != inner_ns
    assert leftovers(outer_host, outer_ns) == []
    assert leftovers(inner_host, inner_ns) == []


def test_default_command_is_the_users_shell(tmp_path):
    report = tmp_path / "report"
    script = tmp_path / "fake-shell"
    script.write_text("#!/bin/sh\n" + REPORT.format(file=report) + "\nexit 9\n")
    script.chmod(0o755)
    done = emulate("--link", "serial-9k6", env={**os.environ, "SHELL": str(script)})
    assert done.returncode == 9
    host, ns, _ = read_report(report)
    assert leftovers(host, ns) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--link", "no-such-link", "--", "true"], "unknown link preset 'no-such-link'"),
        (["--link", "serial-9k6", "--loss", "1.5", "--", "true"], "must be a probability"),
        (["--link", "serial-9k6", "--"], "no command after '--'"),
        (["--", "true"], "name a preset with --link"),
        (
            ["--link", "serial-9k6", "--pcap", "/no/such/folder/p", "--", "true"],
            "--pcap: folder '/no/such/folder' does not exist",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_made(args, message):
    done = emulate(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert message in done.stderr
    assert stale_tables() == []


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ((os, "geteuid", lambda: 1000), "the emulator needs root"),
        ((netns, "TUN_PATH", "/dev/net/no-tun"), "the emulator needs /dev/net/no-tun"),
        ((netns, "unshare_net", refuse), "does not allow network namespaces"),
    ],
)
def test_a_machine_that_cannot_emulate_gets_one_line_exit_2(patch, message, capsys, monkeypatch):
    monkeypatch.setattr(*patch)
    code, out, err = wwanlab(capsys, monkeypatch, "emulate", "--link", "serial-9k6", "--", "true")
    assert (code, out) == (2, "")
    assert err.startswith("wwanlab: error: ") and err.count("\n") == 1
    assert message in err
    assert stale_tables() == []


def start(tmp_path: Path, inner: str) -> tuple[subprocess.Popen[str], str, tuple[int, int], int]:
    """wwanlab emulate in a session of its own (as a terminal's foreground job)."""
    report = tmp_path / "report"
    proc = subprocess.Popen(
        [
            WWANLAB,
            "emulate",
            "--link",
            "serial-9k6",
            "--",
            "sh",
            "-c",
            REPORT.format(file=report) + "; " + inner,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    host, ns, pid = read_report(report)
    assert leftovers(host, ns) != []  # it is up: devices, table, namespace
    return proc, host, ns, pid


def test_ctrl_c_ends_the_command_and_everything_goes(tmp_path):
    proc, host, ns, _ = start(tmp_path, "exec sleep 60")
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    assert proc.wait(30) == 128 + signal.SIGINT
    assert leftovers(host, ns) == []


def test_sigterm_to_wwanlab_is_passed_on_and_everything_goes(tmp_path):
    proc, host, ns, _ = start(tmp_path, "exec sleep 60")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 128 + signal.SIGTERM
    assert leftovers(host, ns) == []


def test_kill_9_of_the_command_and_everything_goes(tmp_path):
    proc, host, ns, pid = start(tmp_path, "exec sleep 60")
    os.kill(pid, signal.SIGKILL)
    assert proc.wait(30) == 128 + signal.SIGKILL
    assert leftovers(host, ns) == []


def test_kill_9_of_wwanlab_and_the_guardian_cleans_up(tmp_path):
    # A command with a child of its own, to see the whole namespace emptied.
    proc, host, ns, pid = start(tmp_path, "sleep 60 & wait")
    proc.kill()
    proc.wait(30)
    wait_clean(host, ns)
    assert gone(pid)


def test_kill_9_of_an_outer_emulator_takes_the_nested_one_with_it(tmp_path):
    outer_report, inner_report = tmp_path / "outer", tmp_path / "inner"
    script = tmp_path / "inner.sh"
    script.write_text(REPORT.format(file=inner_report) + "\nexec sleep 60\n")
    proc = subprocess.Popen(
        [
            WWANLAB,
            "emulate",
            "--link",
            "serial-9k6",
            "--",
            "sh",
            "-c",
            REPORT.format(file=outer_report)
            + f"; {WWANLAB} emulate --link gprs-one-user -- sh {script}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    outer_host, outer_ns, _ = read_report(outer_report)
    inner_host, inner_ns, inner_pid = read_report(inner_report)
    proc.kill()
    proc.wait(30)
    wait_clean(outer_host, outer_ns)
    wait_clean(inner_host, inner_ns)
    assert gone(inner_pid)
    # The nested instance turned forwarding on in the outer one's namespace, which is
    # gone; the next start sweeps its note away.
    assert emulate("--link", "serial-9k6", "--", "true").returncode == 0
    assert not (instances.RUN_DIR / f"forward-{outer_ns[0]}-{outer_ns[1]}").exists()


def test_plot_of_an_unreadable_log_is_one_line_exit_2(tmp_path):
    done = emulate("--plot", str(tmp_path / "none.csv"))
    assert done.returncode == 2
    assert done.stderr.startswith("wwanlab: error: ") and done.stderr.count("\n") == 1
    assert not (tmp_path / "none.png").exists()
