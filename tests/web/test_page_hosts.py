"""The sites' host distribution (web.pages.hosts): roles, Figure 3's counts, the band."""

import random
from collections import Counter

import pytest

from wwanlab.web.pages import generate
from wwanlab.web.pages.generator import HOSTS_ROLES
from wwanlab.web.pages.hosts import (
    AD,
    AD_OBJECTS,
    BEACON,
    EVEN,
    IMAGES,
    MAIN,
    ROLES,
    SCRIPT,
    place,
)
from wwanlab.web.pages.tables import SITES


def test_roles_put_text_on_main_or_script_and_count_ads_and_beacons() -> None:
    kinds = ["text/css", "application/x-javascript", *["image/gif"] * 8]
    sizes = [900, 800, 43, 60, 500, 700, 1200, 3000, 400, 90]
    roles = [MAIN, IMAGES, AD, BEACON, SCRIPT]
    where = place(kinds, sizes, roles, ROLES, random.Random(1))
    assert where[:2] == [4, 4]  # the style sheet and the script on the script server
    assert where[2] == 3  # the beacon takes the smallest image (43 bytes)
    assert Counter(where) == {1: 5, 2: AD_OBJECTS, 3: 1, 4: 2}


def test_images_are_shared_evenly_by_the_image_servers() -> None:
    kinds = ["image/gif"] * 9
    where = place(kinds, list(range(100, 109)), [MAIN, IMAGES, IMAGES], ROLES, random.Random(2))
    assert Counter(where) == {1: 5, 2: 4}


def test_every_host_serves_an_object_even_when_objects_are_few() -> None:
    where = place(["image/gif"], [100], [MAIN, IMAGES, AD], ROLES, random.Random(0))
    assert where == [1] or where == [2]
    where = place(["image/gif"] * 2, [100, 90], [MAIN, IMAGES, AD], ROLES, random.Random(0))
    assert set(where) == {1, 2}


def test_unknown_spread_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown spread"):
        place(["image/gif"], [1], [MAIN], "zipf", random.Random(0))


@pytest.mark.parametrize("site", list(SITES))
def test_generated_pages_keep_table1_domains_under_both_spreads(site: str) -> None:
    for spread in (ROLES, EVEN):
        page = generate(site, 0, spread)
        assert len(page.hosts()) == SITES[site].domains
        assert len(page.objects) + 1 == SITES[site].count


def test_cnn_as_figure3_shows_it() -> None:
    page = generate("cnn", 0, ROLES)
    served = Counter(o.host for o in page.objects)
    roles = dict(HOSTS_ROLES["cnn"])
    assert served["ping.nnselect.com"] == 1 and served["ads.web.aol.com"] == AD_OBJECTS
    images = sum(n for host, n in served.items() if roles[host] == IMAGES)
    assert images / len(page.objects) > 0.7  # most objects from the two image servers
    assert all(o.content_type.startswith("image/") for o in page.objects if o.host == "i2.cnn.net")
    even = Counter(o.host for o in generate("cnn", 0, EVEN).objects)
    assert max(even.values()) < 0.3 * len(page.objects)  # the old model: no host carries most
