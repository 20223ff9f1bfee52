"""Page models: Table 1 and 3 as data, generated pages with their statistics, loaded pages."""

import functools
import struct
import zlib

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.web.page import FIXED, VARIABLE, Page
from wwanlab.web.pages import HOSTS, KB, SITES, TABLE3, generate, references
from wwanlab.web.pages.synth import gzip_body
from wwanlab.web.pages.tables import fixed_share, lossless_ratio

SEEDS = (0, 1, 7)


@functools.cache
def page(site: str, seed: int) -> Page:
    return generate(site, seed)


def everything(p: Page) -> list[bytes]:
    return [p.main.body, *(o.body for o in p.objects)]


def test_table1_rows_agree_with_themselves():
    # Average = sum / count, throughput = sum * 8 / WWAN-Virtual time, both to the
    # paper's rounding: the reading of the columns the generator builds on.
    assert list(SITES) == [
        "altavista", "mail", "yahoo", "go", "bbc", "amazon", "aol", "sourceforge",
        "fortunecity", "cnn",
    ]  # fmt: skip
    for row in SITES.values():
        assert row.avg_kb == pytest.approx(row.sum_kb / row.count, abs=0.051)
        assert row.throughput_kbps == pytest.approx(row.sum_kb * 8 / row.wwan_virtual_s, abs=0.051)
        assert row.wwan_virtual_s < row.wwan_real_s  # section 2.2: virtual hosting is faster
    assert SITES["cnn"].total_bytes == 186_800 and SITES["cnn"].max_bytes == 22_300
    assert SITES["mail"].throughput_kbps * 1.024 > 8.7  # a 1024-byte KB would not fit


def test_table3_totals_are_the_papers():
    # The total column follows from the KB columns for mail and yahoo; the paper's amazon
    # (67.6%) and cnn (52.6%) are 0.64 and 0.14 points above what their KB give.
    off = {"mail": 0.05, "yahoo": 0.05, "amazon": 0.65, "cnn": 0.15}
    for site, row in TABLE3.items():
        saved = 1 - (row.lossless_kb + row.lossy_kb) / (row.fixed_kb + row.variable_kb)
        assert 100 * saved == pytest.approx(row.total_compression_pct, abs=off[site])
    assert TABLE3["mail"].lossless_ratio == pytest.approx(3.0 / 11.8)
    assert set(TABLE3) == {"mail", "yahoo", "amazon", "cnn"}


@pytest.mark.parametrize("site", list(SITES))
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_page_has_table1_statistics(site, seed):
    row, p = SITES[site], page(site, seed)
    sizes = [len(body) for body in everything(p)]
    assert len(sizes) == row.count
    assert sum(sizes) == row.total_bytes  # exact, not only within 1%
    assert max(sizes) == round(row.max_kb * KB)
    assert len(p.hosts()) == row.domains
    assert p.hosts()[0] == HOSTS[site][0] and set(p.hosts()) == set(HOSTS[site])
    assert p.main.content_type == "text/html" and p.main.fidelity == FIXED
    assert len({o.url for o in p.objects} | {p.main.url}) == row.count


@pytest.mark.parametrize("site", list(SITES))
def test_html_embeds_exactly_the_objects_in_document_order(site):
    p = page(site, 1)
    assert references(p.main.body, p.main.url) == [o.url for o in p.objects]
    assert p.main.body.startswith(b"<!DOCTYPE HTML") and p.main.body.endswith(b"</html>\n")


@pytest.mark.parametrize("site", list(SITES))
def test_fixed_fidelity_gzips_to_the_table3_ratio(site):
    # Each fixed-fidelity object gzipped on its own (as the proxy does) shrinks, in sum, to
    # Table 3's lossless ratio (the four-site mean elsewhere) within 0.005.
    for seed in SEEDS:
        p = page(site, seed)
        text = [o.body for o in [p.main, *p.objects] if o.fidelity == FIXED]
        ratio = sum(len(gzip_body(b)) for b in text) / sum(map(len, text))
        assert ratio == pytest.approx(lossless_ratio(site), abs=0.005), (site, seed)


@pytest.mark.parametrize("site", ["mail", "yahoo", "amazon", "cnn"])
def test_fixed_share_follows_table3(site):
    # Exact to the byte where the largest object allows; yahoo's and amazon's largest objects
    # (Table 1) are larger than their fixed shares, the HTML takes one: off by the difference.
    row = SITES[site]
    for seed in SEEDS:
        p = page(site, seed)
        fixed = sum(len(o.body) for o in [p.main, *p.objects] if o.fidelity == FIXED)
        target = fixed_share(site) * row.total_bytes
        assert abs(fixed - target) <= max(1, row.max_bytes - target)
        assert abs(fixed - target) <= 0.015 * row.total_bytes


def test_images_do_not_compress_and_carry_real_signatures():
    p = page("amazon", 0)
    images = [o for o in p.objects if o.fidelity == VARIABLE]
    assert images
    signatures = {
        "image/gif": b"GIF89a",
        "image/jpeg": b"\xff\xd8\xff\xe0",
        "image/png": b"\x89PNG\r\n\x1a\n",
    }
    for o in images:
        assert o.body.startswith(signatures[o.content_type])
        if len(o.body) > 1000:
            assert len(gzip_body(o.body)) > len(o.body)
    png = next((o for o in page("cnn", 0).objects if o.content_type == "image/png"), None)
    assert png is not None
    length, kind = struct.unpack(">I4s", png.body[8:16])
    assert (length, kind) == (13, b"IHDR")
    assert png.body[29:33] == struct.pack(">I", zlib.crc32(png.body[12:29]))
    assert png.body.endswith(b"IEND\xaeB`\x82")


@pytest.mark.parametrize("seed", SEEDS)
def test_cnn_has_many_small_objects(seed):
    # Section 4.1.2: "CNN has more than 60% of the objects less than 1 KB in size";
    # section 3: "more than 70% of the objects less than 2 KB".
    sizes = [len(b) for b in everything(page("cnn", seed))]
    assert sum(s < 1 * KB for s in sizes) / len(sizes) > 0.60
    assert sum(s < 2 * KB for s in sizes) / len(sizes) > 0.70


def test_cnn_uses_figure3_servers():
    assert page("cnn", 0).main.url == "http://www2.cnn.com/"
    assert {"i2.cnn.net", "ads.web.aol.com"} <= set(page("cnn", 0).hosts())


def test_same_seed_same_bytes_other_seed_other_page():
    again = generate("mail", 1)
    assert again == page("mail", 1)
    other = page("mail", 7)
    assert other.main.body != again.main.body
    assert [len(b) for b in everything(other)] != [len(b) for b in everything(again)]


def test_unknown_site_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown site 'nosuch'"):
        generate("nosuch", 1)
