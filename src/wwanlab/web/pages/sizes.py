"""Object sizes for a page: exactly Table 1's count, sum and largest object, many small.

Sizes follow a lognormal law, the usual model of web object sizes, with one shape
``SIGMA`` for every site. The sizes are the law's quantiles at the midpoints of equal
bands of probability, in random order: a page of 67 objects has the law's shape and
not a noisy sample of it, and every seed of a site has the same sizes on other objects,
as every run of the paper downloaded one copy of each page (section 2.2). The median
is solved so that the sizes, kept within [``MIN_OBJECT``, largest], add up to the row's
sum; rounding is repaired on objects with room, so the sum is exact to the byte.

The split into fixed and variable fidelity (Table 3) takes the largest objects for
text, as pages of the period carried their bytes in HTML and scripts and their count
in small images, then moves bytes between the two classes until the fixed share is
exact, where room allows: everywhere but where Table 1's largest object alone exceeds
the share (altavista, yahoo, amazon), which leaves it over by the difference.
"""

import math
import random
from statistics import NormalDist

# Lognormal shape, chosen once for all sites from the only distribution the paper states:
# CNN has > 60% of its objects under 1 KB (4.1.2) and > 70% under 2 KB (3).
SIGMA = 2.2
MIN_OBJECT = 64  # bytes: a 1x1 spacer GIF is 43; room for any image header and trailer
BISECTION_STEPS = 100


def allocate(count: int, total: int, largest: int, rng: random.Random) -> list[int]:
    """``count`` sizes in bytes adding up to ``total``, the first ``largest``, none larger
    and none under ``MIN_OBJECT``."""
    rest, others = total - largest, count - 1
    if count < 1 or not (others * MIN_OBJECT <= rest <= others * largest):
        raise ValueError(f"no {count} objects of at most {largest} bytes add up to {total}")
    normal = NormalDist()
    quantiles = [normal.inv_cdf((i + 0.5) / others) for i in range(others)]
    rng.shuffle(quantiles)

    def sizes(mu: float) -> list[float]:
        return [min(max(math.exp(mu + SIGMA * z), MIN_OBJECT), largest) for z in quantiles]

    low, high = math.log(MIN_OBJECT) - 10 * SIGMA, math.log(largest) + 10 * SIGMA
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        low, high = (middle, high) if sum(sizes(middle)) < rest else (low, middle)
    exact = [round(size) for size in sizes(low)]
    shift(exact, range(others), rest - sum(exact), MIN_OBJECT, largest)
    return [largest, *exact]


def shift(sizes: list[int], which: range | list[int], amount: int, floor: int, cap: int) -> int:
    """Grow (``amount`` > 0) or shrink the objects ``which`` by ``amount`` bytes in all,
    keeping each in [floor, cap], largest room first; returns the bytes left undone."""
    order = sorted(which, key=lambda i: -sizes[i])
    for i in order:
        if amount == 0:
            break
        step = min(amount, cap - sizes[i]) if amount > 0 else max(amount, floor - sizes[i])
        sizes[i] += step
        amount -= step
    return amount


def split(sizes: list[int], fixed_bytes: int, largest: int) -> list[bool]:
    """Which objects are fixed fidelity so that they hold ``fixed_bytes``: the largest
    first while each brings the total nearer (objects near the size floor excepted), then
    bytes moved between the classes (changing ``sizes`` in place, the sum kept) as far as
    the bounds allow."""
    fixed = [False] * len(sizes)
    gap = fixed_bytes
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        if 2 * MIN_OBJECT < sizes[i] < 2 * gap:  # nearer; the tiniest (spacers) stay images
            fixed[i] = True
            gap -= sizes[i]
    if not any(fixed):
        fixed[max(range(len(sizes)), key=lambda i: sizes[i])] = True  # the HTML is text
        gap = fixed_bytes - max(sizes)
    # The largest object keeps its size, so Table 1's max stays exact.
    top = sizes.index(largest)
    movable = [i for i in range(len(sizes)) if i != top]
    grow = [i for i in movable if fixed[i]] if gap > 0 else [i for i in movable if not fixed[i]]
    take = [i for i in movable if not fixed[i]] if gap > 0 else [i for i in movable if fixed[i]]
    room_take = sum(sizes[i] - MIN_OBJECT for i in take)
    room_grow = sum(largest - sizes[i] for i in grow)
    amount = min(abs(gap), room_take, room_grow)
    shift(sizes, take, -amount, MIN_OBJECT, largest)
    shift(sizes, grow, amount, MIN_OBJECT, largest)
    return fixed
