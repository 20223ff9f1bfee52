"""``wwanlab bench pages``: a real Chromium loads a page model through the tunnel over an
emulated GPRS link, and every object arrives byte for byte; the targets are judged on
medians exactly as stated, the techniques table per tunnel case; a bench stopped by a
signal, or killed, leaves none of its programs running."""

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.emu.leftovers import can_emulate, gone

from wwanlab.bench.pages import CASES, FULL, QUICK, TUNNEL_CASES, PagesConfig, run_pages
from wwanlab.bench.pages_page import summary, targets, techniques
from wwanlab.bench.sites import served_site
from wwanlab.core.errors import UsageError
from wwanlab.emu.guardian import with_descendants
from wwanlab.web.page import FIXED
from wwanlab.web.pages import page_for


def row(link: str, case: str, visit: str, plt_ms: float, octets: int) -> dict[str, object]:
    return {
        "link": link, "page": "mail", "case": case, "visit": visit, "rep": 0,
        "plt_ms": plt_ms, "link_octets": octets,
    }  # fmt: skip


def test_targets_on_medians() -> None:
    rows = [
        row("gprs-one-user", "direct", "first", 16_000, 60_000),
        row("gprs-one-user", "direct", "first", 18_000, 60_000),
        row("gprs-one-user", "tunnel", "first", 8_000, 50_000),
        row("gprs-one-user", "tunnel", "revisit", 3_000, 4_000),
        row("gprs-one-user", "kcptun", "first", 30_000, 90_000),
        row("ref-10m-50ms", "direct", "first", 700, 50_000),
        row("ref-10m-50ms", "tunnel", "first", 740, 50_000),
        row("ref-10m-50ms", "tunnel", "revisit", 300, 6_000),
    ]
    table = summary(rows)
    direct = next(r for r in table if r["case"] == "direct")
    assert (direct["runs"], direct["plt_s"], direct["plt_min_s"]) == (2, 17.0, 16.0)
    speed, kcp, fast, revisit = targets(table)
    assert speed.holds and speed.ours == "gprs-one-user mail: 2.12x"
    assert kcp.holds and kcp.ours == "gprs-one-user mail: 8.00 vs 30.00 s"
    assert not fast.holds and fast.ours == "mail: +6%"  # 740 ms against 700: over 5%
    assert not revisit.holds  # 6,000 of 50,000 octets on the fast link: 12%
    assert revisit.ours == "gprs-one-user mail: 8%; ref-10m-50ms mail: 12%"


def test_techniques_each_alone_and_together() -> None:
    rows = [
        row("gprs-one-user", "tunnel-cache", "first", 9_000, 60_000),
        row("gprs-one-user", "tunnel-cache", "revisit", 2_000, 3_000),
        row("gprs-one-user", "direct", "first", 16_000, 60_000),
        row("gprs-one-user", "tunnel", "first", 6_000, 40_000),
        row("gprs-one-user", "tunnel", "first", 7_000, 44_000),
        row("gprs-one-user", "tunnel", "revisit", 2_000, 4_200),
        row("gprs-one-user", "tunnel-none", "first", 10_000, 60_000),
        row("gprs-one-user", "tunnel-none", "revisit", 3_000, 30_000),
        row("gprs-one-user", "kcptun", "first", 30_000, 90_000),
    ]
    table = summary(rows)
    assert [r["case"] for r in table if r["visit"] == "first"] == [
        "direct", "kcptun", "tunnel", "tunnel-none", "tunnel-cache",
    ]  # fmt: skip
    together, alone, cache = techniques(table)
    assert together == {
        "link": "gprs-one-user", "page": "mail", "case": "tunnel", "client flags": "(all on)",
        "first PLT s": 6.5, "PLT vs tunnel-none": "0.65x", "first octets": 42_000,
        "revisit / first octets": "10%",
    }  # fmt: skip
    assert (alone["client flags"], alone["PLT vs tunnel-none"]) == (
        "--no-compress --no-push --no-cache", "1.00x",
    )  # fmt: skip
    assert (cache["client flags"], cache["revisit / first octets"]) == (
        "--no-compress --no-push", "5%",
    )  # fmt: skip
    assert targets(table)[3].ours == "gprs-one-user mail: 10%"  # judged on tunnel alone


def test_cases_quick_and_full() -> None:
    assert QUICK.cases == ("direct", "kcptun", "tunnel") and FULL.cases == CASES
    assert CASES[3:] == tuple(TUNNEL_CASES)[1:]
    assert TUNNEL_CASES["tunnel-images"] == ("--images", "30")
    with pytest.raises(
        UsageError,
        match="unknown case 'tunnel-all' \\(known: direct, kcptun, "
        "tunnel, tunnel-none, tunnel-compress, tunnel-push, tunnel-cache, "
        "tunnel-images\\)",
    ):
        PagesConfig(("gprs-one-user",), ("mail",), ("tunnel", "tunnel-all"))


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(UsageError, match="unknown case 'quic'"):
        PagesConfig(("gprs-one-user",), ("mail",), ("quic",))
    with pytest.raises(UsageError, match="'gmail' is neither a site"):
        PagesConfig(("gprs-one-user",), ("mail", "gmail"))
    with pytest.raises(UsageError, match="--reps must be at least 1"):
        PagesConfig(("gprs-one-user",), ("mail",), reps=0)
    with pytest.raises(UsageError, match=r"--tunnel-credit 70000 outside 1431\.\.65535"):
        PagesConfig(("gprs-one-user",), ("mail",), tunnel_credit=70_000)


@can_emulate
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_through_the_tunnel_over_gprs_gets_every_object_byte_for_byte() -> None:
    config = PagesConfig(("gprs-one-user",), ("mail",), ("tunnel",), reps=1, check_bodies=True)
    first, revisit = run_pages(config, progress=False)
    site = page_for("mail").site()
    assert first["bodies"] == {"same": len(site), "differ": 0, "missing": 0}
    assert first["objects"] == len(site) and first["visit"] == "first"
    assert first["plt_ms"] > 1000  # a 36.7 KB page at 37.6 kbit/s takes seconds
    # the images crossed the emulated link: no lossless technique makes them smaller
    images = sum(
        len(o.body) for o in served_site(page_for("mail")).values() if o.fidelity != FIXED
    )
    assert images < first["link_octets"] < 36_700 + 20_000
    assert revisit["visit"] == "revisit" and 0 < revisit["link_octets"] < first["link_octets"]


WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def started_by(proc: subprocess.Popen[bytes]) -> dict[int, str]:
    """Every process ``proc`` started, directly or not: PID -> command line."""
    found = {}
    for pid in with_descendants([proc.pid]) - {proc.pid}:
        try:
            found[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
    return found


@can_emulate
@pytest.mark.skipif(
    any(shutil.which(p) is None for p in ("chromium", "kcptun-server", "microsocks")),
    reason="chromium, kcptun and microsocks are not installed",
)
@pytest.mark.parametrize(
    ("sig", "code"),
    [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)],
)
def test_a_stopped_bench_leaves_no_program_running(sig: int, code: int, tmp_path: Path) -> None:
    argv = [WWANLAB, "bench", "pages", "--cases", "kcptun", "--links", "gprs-one-user"]
    argv += ["--pages", "mail", "--reps", "1", "--out", str(tmp_path)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            ours = started_by(proc)
            if any("chromium" in c for c in ours.values()):
                break
            time.sleep(0.1)
        for program in ("kcptun-server", "microsocks", "kcptun-client", "chromium"):
            assert any(program in c for c in ours.values()), (program, ours)
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == code
        deadline = time.monotonic() + 5
        while (
            left := [c for p, c in ours.items() if not gone(p)]
        ) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
