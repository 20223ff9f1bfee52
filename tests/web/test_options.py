"""The named options of ``wwanlab web --opt``."""

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.pep.options import OPTIONS, apply, parse_options
from wwanlab.web.browser import Setup
from wwanlab.web.pages import generate
from wwanlab.web.pages.tables import lossy_ratio


def test_parse_keeps_order_and_drops_repeats() -> None:
    chosen = parse_options(" url-rewrite,lossless,,url-rewrite ")
    assert [o.name for o in chosen] == ["url-rewrite", "lossless"]
    assert parse_options("") == []


def test_an_unknown_option_names_the_known_ones() -> None:
    with pytest.raises(UsageError, match="unknown option 'gzip' \\(known: lossless, lossy"):
        parse_options("lossless,gzip")


def test_session_options_change_the_setup_only() -> None:
    page = generate("mail", 1)
    same, setup = apply(parse_options("dns-boost,url-rewrite"), page, Setup(strategy="opt"))
    assert same is page
    assert setup == Setup(strategy="opt", dns_boost=True, url_rewrite=True)


def test_content_options_change_the_bytes_served() -> None:
    page = generate("yahoo", 1)
    lossless, _ = apply(parse_options("lossless"), page, Setup())
    lossy, _ = apply(parse_options("lossy"), page, Setup())
    both, setup = apply(parse_options("compression"), page, Setup())
    assert setup == Setup()
    assert lossless.main.encoding == "gzip" and len(lossless.main.body) < len(page.main.body)
    images = [o for o in page.objects if o.fidelity == "variable"]
    reduced = {o.url: o for o in lossy.objects}
    before = sum(len(o.body) for o in images)
    after = sum(len(reduced[o.url].body) for o in images)
    # Table 3's ratio, a little above where small images keep their header and trailer
    assert lossy_ratio("yahoo") <= after / before <= lossy_ratio("yahoo") + 0.02
    assert both.total_bytes < min(lossless.total_bytes, lossy.total_bytes)


def test_every_option_says_what_it_is() -> None:
    for option in OPTIONS.values():
        assert "section" in option.help and (option.page or option.setup)
