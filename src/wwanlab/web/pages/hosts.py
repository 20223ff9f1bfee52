"""Which host serves which object of a generated page: the site's host distribution.

Pages of 2000-2003 did not spread their objects evenly over their host names. Paper 003's
Figure 3 (CNN over HTTP/1.1, two connections per server at most) shows one connection
each to two of CNN's six servers (ping.nnselect.com and the server named by its address:
one object each), two to the ad server (at least two objects), and the rest of its 13
connections to the main and image servers. Krishnamurthy, Wills and Zhang (IMW 2001,
paper 003's ref. [22]) found images to be 96-98% of the objects CDNs served: image
servers and CDNs carry the images, the main server the HTML. Wills and Mikhailov (WWW8,
1999) found the same split of roles between a page's HTML and its embedded images.

``ROLES`` places objects by their host's role; ``EVEN`` is the model before it (every
object on a host drawn at random, each host serving at least one), kept as the other
end of the band and the ablation.
"""

import random

MAIN = "main"  # the HTML; the style sheets and scripts where the site has no SCRIPT host
SCRIPT = "script"  # style sheets and scripts
IMAGES = "images"  # image servers and CDNs: the images no ad or beacon server takes
AD = "ad"  # an advertising server: AD_OBJECTS images
BEACON = "beacon"  # a counter or ping server: one image
AD_OBJECTS = 2  # Figure 3: two connections to ads.web.aol.com need two objects at least
BEACON_OBJECTS = 1  # Figure 3: one connection each to ping.nnselect.com and 216.39.69.70

ROLES = "roles"
EVEN = "even"
SPREADS = (ROLES, EVEN)


def place(
    kinds: list[str], sizes: list[int], roles: list[str], spread: str, rng: random.Random
) -> list[int]:
    """The index (into ``roles``) of the host serving each embedded object, given each
    object's content type and size; host 0 (the main one) also serves the HTML, every
    other host at least one object."""
    if spread == EVEN:
        return _even(len(kinds), len(roles), rng)
    if spread != ROLES:
        raise ValueError(f"unknown spread {spread!r} (known: {', '.join(SPREADS)})")
    where = [-1] * len(kinds)

    def hosts(role: str) -> list[int]:
        return [i for i, r in enumerate(roles) if r == role]

    text = [i for i, k in enumerate(kinds) if not k.startswith("image/")]
    images = [i for i, k in enumerate(kinds) if k.startswith("image/")]
    images.sort(key=sizes.__getitem__)
    for n, i in enumerate(text):
        scripts = hosts(SCRIPT)
        where[i] = scripts[n % len(scripts)] if scripts else 0
    for host in hosts(BEACON):  # the smallest images: 1x1 counters
        for _ in range(BEACON_OBJECTS):
            if images:
                where[images.pop(0)] = host
    rng.shuffle(images)
    for host in hosts(AD):
        for _ in range(AD_OBJECTS):
            if images:
                where[images.pop()] = host
    servers = hosts(IMAGES) or [0]
    for n, i in enumerate(images):
        where[i] = servers[n % len(servers)]
    _fill(where, len(roles))
    return where


def _even(count: int, hosts: int, rng: random.Random) -> list[int]:
    """Each object on a random host, hosts 1.. first so that each serves one."""
    order = list(range(count))
    rng.shuffle(order)
    where = [0] * count
    for n, i in enumerate(order):
        where[i] = n + 1 if n + 1 < hosts else rng.randrange(hosts)
    return where


def _fill(where: list[int], hosts: int) -> None:
    """Give every host but the main one an object at least, taken from the busiest."""
    for host in range(1, hosts):
        if host in where:
            continue
        busiest = max(range(hosts), key=where.count)
        if where.count(busiest) < 2 and busiest != 0:
            continue  # too few objects for every host to serve one
        where[where.index(busiest)] = host
