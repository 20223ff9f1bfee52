"""The bench's decodable pictures: real images of the model's format and size."""

import io
import time

import pytest
from PIL import Image

from wwanlab.bench.images import FORMATS, SIZE_TOLERANCE, picture
from wwanlab.bench.sites import served_site
from wwanlab.tunnel.images import recompress
from wwanlab.web.pages import page_for

PAPER_003_PAGES = ("mail", "yahoo", "amazon", "cnn")  # Table 3's sites
SMALLEST_PICTURE = 2  # pixels: a picture this small may exceed a tiny model size


def images(site: str) -> list[tuple[int, bytes, str]]:
    """(the model's size, the served body, the type) of every image of ``site``'s page."""
    modelled = page_for(site).site()
    return [
        (len(modelled[url].body), obj.body, obj.content_type)
        for url, obj in served_site(page_for(site)).items()
        if obj.content_type.startswith("image/")
    ]


@pytest.mark.parametrize("site", PAPER_003_PAGES)
def test_every_image_decodes_in_its_format_at_the_models_size(site: str) -> None:
    found = images(site)
    assert found
    for size, body, content_type in found:
        image = Image.open(io.BytesIO(body))
        image.load()
        assert image.format == FORMATS[content_type]
        if abs(len(body) - size) > SIZE_TOLERANCE * size:
            # Only where the format's smallest picture is larger than the model's image.
            assert image.width * image.height <= SMALLEST_PICTURE
            assert len(body) > size


def test_pictures_are_the_same_on_every_call_and_differ_by_url() -> None:
    url = "http://images.example/a.jpg"
    first = picture(url, "image/jpeg", 5000)
    picture.cache_clear()
    assert picture(url, "image/jpeg", 5000) == first
    assert picture("http://images.example/b.jpg", "image/jpeg", 5000) != first


def test_the_served_site_replaces_images_and_nothing_else() -> None:
    page = page_for("yahoo")
    served = served_site(page)
    assert served.keys() == page.site().keys()
    for url, obj in page.site().items():
        if obj.content_type.startswith("image/"):
            assert served[url].body != obj.body
            assert served[url].content_type == obj.content_type
        else:
            assert served[url] == obj


def test_a_page_is_made_in_well_under_a_few_seconds() -> None:
    picture.cache_clear()
    start = time.perf_counter()
    served_site(page_for("cnn"))  # the page with the most images (54)
    assert time.perf_counter() - start < 3.0


def test_the_photographs_give_the_lossy_reduction_something_to_do() -> None:
    jpegs = [
        body for site in PAPER_003_PAGES for _, body, kind in images(site) if kind == "image/jpeg"
    ]
    assert len(jpegs) >= 10
    for body in jpegs:
        smaller = recompress(body, "image/jpeg")
        assert smaller is not None
        assert len(smaller) < 0.7 * len(body)
