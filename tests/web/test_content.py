"""Application-layer transforms of paper 003 section 4.1 on real bytes."""

import functools
import gzip
import random
from difflib import SequenceMatcher

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.web.content import (
    EDIT_FRACTION,
    EDIT_RUN,
    compress_full,
    compress_lossless,
    compress_lossy,
    compressibility,
    revisit,
)
from wwanlab.web.page import FIXED, VARIABLE, Page
from wwanlab.web.pages import TABLE3, generate, references
from wwanlab.web.pages.tables import MEAN_LOSSY_RATIO, lossless_ratio


@functools.cache
def page(site: str, seed: int = 0) -> Page:
    return generate(site, seed)


def test_lossless_gzips_text_and_leaves_images():
    p = page("mail")
    q = compress_lossless(p)
    assert q.main.encoding == "gzip" and gzip.decompress(q.main.body) == p.main.body
    assert q.main.body[:3] == b"\x1f\x8b\x08"  # RFC 1952 magic, deflate
    for old, new in zip(p.objects, q.objects, strict=True):
        assert new.url == old.url and new.content_type == old.content_type
        if old.fidelity == FIXED:
            assert new.encoding == "gzip" and gzip.decompress(new.body) == old.body
        else:
            assert new == old
    assert compress_lossless(q) == q  # an encoded object is not compressed twice


def test_lossy_cuts_images_to_the_sites_ratio_keeping_header_and_trailer():
    p = page("cnn")
    q = compress_lossy(p, "cnn")
    ratio = TABLE3["cnn"].lossy_ratio
    assert q.main == p.main
    for old, new in zip(p.objects, q.objects, strict=True):
        if old.fidelity == FIXED:
            assert new == old
            continue
        assert len(new.body) == max(
            round(len(old.body) * ratio), 14 if old.body[:3] == b"GIF" else 0
        )
        assert new.body[:13] == old.body[:13] and new.body[-1:] == old.body[-1:]
        tail = {"image/gif": 1, "image/jpeg": 2, "image/png": 12}[old.content_type]
        assert old.body.startswith(new.body[:-tail])  # the payload's start, no new bytes
    image = next(o for o in p.objects if o.content_type == "image/jpeg")
    reduced = compress_lossy(Page("one", p.main, (image,)), 0.5).objects[0]
    assert len(reduced.body) == round(len(image.body) / 2) and reduced.body.endswith(b"\xff\xd9")


def test_lossy_ratio_for_a_site_without_table3_row_is_the_mean():
    p = page("bbc")
    image_bytes = sum(len(o.body) for o in p.objects if o.fidelity == VARIABLE)
    reduced = sum(len(o.body) for o in compress_lossy(p, "bbc").objects if o.fidelity == VARIABLE)
    # Images at the 64-byte floor keep their 14-byte GIF framing: within a few bytes each.
    assert reduced == pytest.approx(MEAN_LOSSY_RATIO * image_bytes, rel=0.01)


@pytest.mark.parametrize("bad", ["nosuch", 0.0, 1.5, -0.2])
def test_lossy_refuses_unknown_site_or_ratio(bad):
    with pytest.raises(UsageError):
        compress_lossy(page("mail"), bad)


def test_full_is_lossy_then_lossless():
    p = page("yahoo")
    assert compress_full(p, "yahoo") == compress_lossless(compress_lossy(p, "yahoo"))
    assert compress_full(p, "yahoo").total_bytes < 0.35 * p.total_bytes


@pytest.mark.parametrize("site", list(TABLE3))
def test_table3_measured_on_generated_pages(site):
    # Ours beside the paper's: the same lossless and lossy ratios (lossless within 0.005,
    # lossy within 1% of the images' bytes), total compression within 0.7 points (the
    # paper's own amazon total is 0.64 points off its KB columns).
    paper = TABLE3[site]
    ours = compressibility(page(site), site)
    assert ours.lossless_ratio == pytest.approx(lossless_ratio(site), abs=0.005)
    assert ours.lossy_ratio == pytest.approx(paper.lossy_ratio, rel=0.01)
    assert ours.total_compression_pct == pytest.approx(paper.total_compression_pct, abs=0.7)
    whole = (ours.fixed_kb + ours.variable_kb) * 1000
    assert whole == page(site).total_bytes


def changed_lines(a: bytes, b: bytes) -> int:
    """Lines of ``a`` that ``b`` does not keep unchanged."""
    old, new = a.splitlines(), b.splitlines()
    blocks = SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
    return len(old) - sum(block.size for block in blocks)


def test_revisit_changes_a_little_of_a_few_objects():
    p = page("cnn", 1)
    q = revisit(p, random.Random(5))
    assert q == revisit(p, random.Random(5))  # deterministic for the stream
    assert references(q.main.body, q.main.url) == [o.url for o in q.objects]
    before = {o.url: o for o in p.objects}
    kept = [o for o in q.objects if o.url in before]
    new = [o for o in q.objects if o.url not in before]
    edited = [o for o in kept if o.body != before[o.url].body]
    same = [o for o in kept if o.body == before[o.url].body]
    # 66 embedded objects: ceil(5%) = 4 replaced, 4 aliased; 19 other text objects are left
    # after the replaced, ceil(25%) = 5 of them edited (an aliased one among the candidates).
    assert len(q.objects) == len(p.objects) + 4
    replaced = [o for o in new if "?ord=" not in o.url]
    aliases = [o for o in new if "?ord=" in o.url]
    assert len(replaced) == 4 and len(aliases) == 4
    assert len(set(before) - {o.url for o in q.objects}) == 4
    assert 1 <= len(edited) <= 5 and all(o.fidelity == FIXED for o in edited)
    assert len(same) >= len(p.objects) - 4 - 5
    for alias in aliases:
        original = next(o for o in q.objects if o.url == alias.url.split("?ord=")[0])
        assert alias.body == original.body and alias.content_type == original.content_type
    for o in replaced:
        assert all(o.body != old.body for old in p.objects)
    for o in edited:
        assert_edited(before[o.url].body, o.body)
    # The HTML: edited, and 8 tags renamed or doubled.
    assert_edited(p.main.body, q.main.body, lines=8, grown=8 * 120)


def assert_edited(old: bytes, new: bytes, lines: int = 0, grown: int = 0) -> None:
    """Edits of 8-40 characters, each within one line, add up to 3% of the bytes (the last
    may overshoot by 40); each is at most half as long again or half as short."""
    budget = round(EDIT_FRACTION * len(old))
    edits = -(-budget // EDIT_RUN[0])
    assert new != old
    assert 1 <= changed_lines(old, new) <= edits + lines
    assert abs(len(new) - len(old)) <= (budget + EDIT_RUN[1]) / 2 + grown


def test_revisited_pages_stay_compressible_and_the_same_size_class():
    p = page("mail", 2)
    q = revisit(p, random.Random(1))
    for o in q.objects:
        if o.fidelity == FIXED:
            ratio = len(gzip.compress(o.body)) / len(o.body)
            assert ratio < 0.9
    assert abs(q.total_bytes - p.total_bytes) < 0.5 * p.total_bytes


def test_revisit_after_compression_is_refused():
    with pytest.raises(ValueError, match="before compressing"):
        revisit(compress_lossless(page("mail")), random.Random(1))
