"""Page models: Table 1 and 3 as data, generated pages with their statistics, loaded pages."""

import base64
import functools
import json
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.core.errors import UsageError
from wwanlab.web.cache import http_date
from wwanlab.web.page import FIXED, VARIABLE, Page
from wwanlab.web.pages import (
    HOSTS,
    KB,
    MAX_OBJECTS,
    SITES,
    TABLE3,
    generate,
    load,
    page_for,
    references,
    rewrite,
)
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
    first = page("mail", 1)
    generate.cache_clear()
    again = generate("mail", 1)
    assert again is not first and again == first
    other = page("mail", 7)
    assert other.main.body != again.main.body
    assert [len(b) for b in everything(other)] != [len(b) for b in everything(again)]


def test_unknown_site_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown site 'nosuch'"):
        generate("nosuch", 1)


# Loading a user's page: HAR 1.2 and folders.


def har_entry(url: str, mime: str, body: bytes | None, *, status: int = 200, size: int = -1):
    content: dict[str, Any] = {"mimeType": mime, "size": len(body) if body is not None else size}
    if body is not None:
        if mime.startswith("image/"):
            content.update(text=base64.b64encode(body).decode(), encoding="base64")
        else:
            content["text"] = body.decode()
    return {
        "request": {"method": "GET", "url": url},
        "response": {"status": status, "content": content},
    }


def har(entries: list[dict[str, Any]], title: str = "saved") -> dict[str, Any]:
    return {"log": {"version": "1.2", "pages": [{"title": title}], "entries": entries}}


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document))
    return path


def page_as_har(p: Page) -> dict[str, Any]:
    objects = []
    for o in p.objects:
        entry = har_entry(o.url, o.content_type, o.body)
        if o.modified is not None:  # static objects keep their validator
            entry["response"]["headers"] = [
                {"name": "Last-Modified", "value": http_date(o.modified)}
            ]
        objects.append(entry)
    return har([har_entry(p.main.url, "text/html", p.main.body), *objects], title=p.name)


@pytest.mark.parametrize("site", ["mail", "cnn"])
def test_har_round_trip(tmp_path, site):
    p = page(site, 0)
    assert load(write(tmp_path / "page.har", page_as_har(p))) == p


def test_har_choices(tmp_path):
    # https read as http; a redirect and a data: URL left out; an entry saved without its
    # text gets its size in bytes; an entry the HTML does not embed gets a tag; an embedded
    # URL without an entry loses its tag; the second entry for a URL is ignored.
    html = (
        b'<html><body><img src="/a.gif"><img src="https://cdn.example/gone.png">'
        b'<script src="app.js"></script></body></html>'
    )
    gif = b"GIF89a" + bytes(100)
    entries = [
        har_entry("http://www.example/old", "text/html", b"", status=301),
        har_entry("https://www.example/", "text/html; charset=utf-8", html),
        har_entry("https://www.example/a.gif", "image/gif", gif),
        har_entry("https://www.example/a.gif", "image/gif", b"GIF89a"),
        har_entry("https://www.example/app.js", "application/javascript", None, size=5000),
        har_entry("https://www.example/late.css", "text/css", b"body { margin: 0 }"),
        har_entry("data:image/gif;base64,R0lGODlh", "image/gif", b"GIF89a"),
    ]
    p = load(write(tmp_path / "x.har", har(entries, title="")))
    assert p.name == "x" and p.main.url == "http://www.example/"
    assert [o.url for o in p.objects] == [
        "http://www.example/a.gif",
        "http://www.example/app.js",
        "http://www.example/late.css",
    ]
    assert references(p.main.body, p.main.url) == [o.url for o in p.objects]
    assert b"gone.png" not in p.main.body and b'<link rel="stylesheet"' in p.main.body
    assert p.objects[0].body == gif
    made = p.objects[1].body
    assert len(made) == 5000 and len(zlib.compress(made, 9)) < 0.5 * len(made)
    assert load(tmp_path / "x.har") == p  # made bytes are the same on every load


def test_folder_round_trip(tmp_path):
    p = page("mail", 0)
    relative = {o.url: [o.host + o.target] for o in p.objects}
    (tmp_path / "index.html").write_bytes(rewrite(p.main.body, p.main.url, relative))
    for o in p.objects:
        file = tmp_path / o.host / o.target.lstrip("/")
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(o.body)
    q = load(tmp_path)
    assert q.main.url == "http://local.example/"
    assert [o.url for o in q.objects] == [
        f"http://local.example/{o.host}{o.target}" for o in p.objects
    ]
    assert [o.body for o in q.objects] == [o.body for o in p.objects]
    assert [o.fidelity for o in q.objects] == [o.fidelity for o in p.objects]
    assert {o.content_type for o in q.objects} <= {
        "image/gif",
        "image/jpeg",
        "image/png",
        "text/css",
        "text/javascript",
    }


def bad_har_cases() -> dict[str, tuple[Any, str]]:
    ok = har_entry("http://h.example/", "text/html", b"<html></html>")
    return {
        "no log": ({"entries": []}, "log missing"),
        "entries not a list": ({"log": {"entries": {}}}, "log.entries missing or not a list"),
        "no url": (
            har([{"request": {}, "response": ok["response"]}]),
            r"log.entries\[0\].request.url missing",
        ),
        "no mime type": (
            har([{**ok, "response": {"status": 200, "content": {"size": 3}}}]),
            "content.mimeType missing",
        ),
        "status a string": (
            har([{**ok, "response": {**ok["response"], "status": "200"}}]),
            "status missing or not an integer",
        ),
        "no html": (
            har([har_entry("http://h.example/a.gif", "image/gif", b"GIF89a")]),
            "no HTML entry",
        ),
        "bad base64": (
            har(
                [
                    ok,
                    {
                        **ok,
                        "response": {
                            "status": 200,
                            "content": {
                                "mimeType": "image/gif",
                                "size": 1,
                                "text": "%%",
                                "encoding": "base64",
                            },
                        },
                    },
                ]
            ),
            "not base64",
        ),
        "self reference": (
            har([har_entry("http://h.example/", "text/html", b'<img src="http://h.example/">')]),
            "embeds itself",
        ),
        "not a url": (har([har_entry("http:///nohost", "text/html", b"<p>")]), "not a URL"),
    }


@pytest.mark.parametrize("case", list(bad_har_cases()))
def test_bad_har_is_one_usage_error(tmp_path, case):
    document, message = bad_har_cases()[case]
    with pytest.raises(UsageError, match=message) as error:
        load(write(tmp_path / "bad.har", document))
    assert "\n" not in str(error.value)


def test_not_json_and_not_a_path(tmp_path):
    (tmp_path / "x.har").write_text('{"log": {"entries": [')
    with pytest.raises(UsageError, match="not JSON"):
        load(tmp_path / "x.har")
    (tmp_path / "y.har").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UsageError, match="not UTF-8"):
        load(tmp_path / "y.har")
    (tmp_path / "deep.har").write_text("[" * 100_000)
    with pytest.raises(UsageError, match="not a HAR file"):
        load(tmp_path / "deep.har")
    with pytest.raises(UsageError, match="no such file"):
        load(tmp_path / "missing.har")


@pytest.mark.timeout(20)
def test_ten_thousand_objects_are_refused_quickly(tmp_path):
    html = b"".join(b'<img src="/i%d.gif">' % i for i in range(10_000))
    images = [
        har_entry(f"http://h.example/i{i}.gif", "image/gif", None, size=50) for i in range(10_000)
    ]
    file = write(
        tmp_path / "big.har", har([har_entry("http://h.example/", "text/html", html), *images])
    )
    with pytest.raises(UsageError, match=f"more than {MAX_OBJECTS}"):
        load(file)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "index.html").write_bytes(html)
    with pytest.raises(UsageError, match=f"more than {MAX_OBJECTS}"):
        load(tmp_path / "folder")


@pytest.mark.parametrize(
    ("html", "message"),
    [
        (b'<img src="http://other.example/a.gif">', "outside the folder"),
        (b'<img src="../../etc/passwd">', "no file"),
        (b'<script src="missing.js"></script>', "no file"),
        (b'<img src="index.html">', "embeds itself"),
        (b'<img src="./">', "embeds itself"),
    ],
)
def test_bad_folder_is_one_usage_error(tmp_path, html, message):
    (tmp_path / "index.html").write_bytes(html)
    with pytest.raises(UsageError, match=message):
        load(tmp_path)


def test_folder_without_index(tmp_path):
    with pytest.raises(UsageError, match=r"needs an index\.html"):
        load(tmp_path)


# The HTML scanner.


class OracleParser(HTMLParser):
    """The standard library's parser, as a second opinion on well-formed documents."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in ("img", "script") and values.get("src"):
            self.found.append(values["src"])
        rel = (values.get("rel") or "").lower().split()
        if tag == "link" and "stylesheet" in rel and values.get("href"):
            self.found.append(values["href"])


@pytest.mark.parametrize("site", ["mail", "cnn", "aol"])
def test_scanner_agrees_with_html_parser_on_generated_pages(site):
    p = page(site, 7)
    oracle = OracleParser()
    oracle.feed(p.main.body.decode())
    assert references(p.main.body, p.main.url) == oracle.found


def test_scanner_reads_html_as_browsers_do():
    document = b"""<!DOCTYPE html><HTML><head>
<LINK REL="Alternate StyleSheet" HREF='/alt.css'><link rel=icon href=/favicon.ico>
<link rel="stylesheet" href="/a.css#x"><title><img src="/not-in-title.gif"></title>
<script>document.write('<img src="/not-from-script.gif">')</script>
<!-- <img src="/commented.gif"> --></head><body>
<IMG alt="a > b" SRC = "img/one.gif" src="/second-src-ignored.gif">
<img src=two.png?a=1&amp;b=2><img data-src="/lazy.gif"><img src="">
<script src="//cdn.example/lib.js"></script><img src="../up.gif"/>
<textarea><img src="/not-in-textarea.gif"></textarea><img src="/a.css">
</body></html>"""
    assert references(document, "http://h.example/dir/page.html") == [
        "http://h.example/alt.css",
        "http://h.example/a.css",
        "http://h.example/dir/img/one.gif",
        "http://h.example/dir/two.png?a=1&b=2",
        "http://cdn.example/lib.js",
        "http://h.example/up.gif",
    ]


@pytest.mark.parametrize(
    "document",
    [b'<img src="/a.gif"', b'<img src="/a.gif><img src=/b.gif>', b"<!-- <img src=/a.gif>"],
)
def test_a_document_that_ends_inside_a_tag_ends_there(document):
    assert references(document, "http://h.example/") == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize("unit", [b"<a ", b"<", b"<img src=a", b'<a b="x" ', b"</"])
def test_scanner_is_linear_on_hostile_input(unit):
    # html.parser takes minutes on 64 KB of "<a <a ..."; this is 1 MB of each.
    assert references(unit * (2**20 // len(unit)), "http://h.example/") == []


def test_rewrite_renames_doubles_and_removes_keeping_the_rest():
    document = (
        b"<p>x</p><img alt=1 src='/a.gif' width=3><script src=/s.js></script>"
        b'<link href="/c.css" rel=stylesheet><img src="/keep.gif">'
    )
    base = "http://h.example/"
    changed = rewrite(
        document,
        base,
        {
            "http://h.example/a.gif": ["http://h.example/a.gif?v=2&x=1"],
            "http://h.example/s.js": ["http://h.example/s.js", "http://h.example/t.js"],
            "http://h.example/c.css": [],
        },
    )
    assert changed == (
        b"<p>x</p><img alt=1 src='http://h.example/a.gif?v=2&amp;x=1' width=3>"
        b"<script src=http://h.example/s.js></script><script src=http://h.example/t.js></script>"
        b'<img src="/keep.gif">'
    )
    assert references(changed, base) == [
        "http://h.example/a.gif?v=2&x=1",
        "http://h.example/s.js",
        "http://h.example/t.js",
        "http://h.example/keep.gif",
    ]


def test_page_for_a_site_or_a_path(tmp_path):
    assert page_for("mail", 1) == page("mail", 1)
    (tmp_path / "index.html").write_text("<p>hello</p>")
    assert page_for(str(tmp_path)).main.body == b"<p>hello</p>"
    with pytest.raises(UsageError, match="neither a site"):
        page_for("no-such-site-or-file")


PATHS = st.from_regex(r"/[a-z0-9]{1,8}(\.gif|\.js|\.css)?", fullmatch=True)


@st.composite
def fragment(draw) -> tuple[str, str | None]:
    """A piece of HTML and the path it embeds (None for none)."""
    path = draw(PATHS)
    quote = draw(st.sampled_from(['"', "'", ""]))
    value = f"{quote}{path}{quote}"
    kind = draw(st.integers(0, 7))
    if kind == 0:
        return draw(st.text(alphabet="abc xyz\n>=/'\"", max_size=12)), None
    if kind == 1:
        return f'<IMG alt="a > b" SRC={value} width=3>', path
    if kind == 2:
        return f"<script type=text/javascript src={value}></script>", path
    if kind == 3:
        return f'<link rel="alternate stylesheet" href={value} />', path
    if kind == 4:
        return f"<a href={value}>x</a><img data-src={value}><link rel=icon href={value}>", None
    if kind == 5:
        return f"<!-- <img src={value}> -->", None
    if kind == 6:
        return f"<script>var s = '<img src={value}>';</script>", None
    return f"<img src = {value} src=/ignored.gif>", path


@settings(max_examples=150, deadline=None)
@given(st.lists(fragment(), max_size=12))
def test_scanner_and_rewrite_on_generated_documents(pieces):
    base = "http://h.example/"
    document = "".join(piece for piece, _ in pieces).encode()
    expected = list(dict.fromkeys(base + path[1:] for _, path in pieces if path))
    assert references(document, base) == expected
    renamed = rewrite(document, base, {url: [url + "?v=2"] for url in expected})
    assert references(renamed, base) == [url + "?v=2" for url in expected]
    doubled = rewrite(document, base, {url: [url, url + "?b"] for url in expected})
    assert references(doubled, base) == [u for url in expected for u in (url, url + "?b")]
