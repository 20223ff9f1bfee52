"""``wwanlab bench pages``: a real Chromium loads a page model through the tunnel over an
emulated GPRS link, and every object arrives byte for byte; the targets are judged on
medians exactly as stated."""

import shutil

import pytest
from tests.emu.leftovers import can_emulate

from wwanlab.bench.pages import PagesConfig, run_pages
from wwanlab.bench.pages_page import summary, targets
from wwanlab.core.errors import UsageError
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


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(UsageError, match="unknown case 'quic'"):
        PagesConfig(("gprs-one-user",), ("mail",), ("quic",))
    with pytest.raises(UsageError, match="--reps must be at least 1"):
        PagesConfig(("gprs-one-user",), ("mail",), reps=0)
    with pytest.raises(UsageError, match=r"--tunnel-credit 70000 outside 1431\.\.65535"):
        PagesConfig(("gprs-one-user",), ("mail",), tunnel_credit=70_000)


@can_emulate
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_through_the_tunnel_over_gprs_gets_every_object_byte_for_byte() -> None:
    config = PagesConfig(("gprs-one-user",), ("mail",), ("tunnel",), reps=1, check_bodies=True)
    first, revisit = run_pages(config, progress=False)
    objects = len(page_for("mail").site())
    assert first["bodies"] == {"same": objects, "differ": 0, "missing": 0}
    assert first["objects"] == objects and first["visit"] == "first"
    assert first["plt_ms"] > 1000  # a 36.7 KB page at 37.6 kbit/s takes seconds
    assert first["link_octets"] > 36_700  # the page's octets crossed the emulated link
    assert revisit["visit"] == "revisit" and 0 < revisit["link_octets"] < first["link_octets"]
