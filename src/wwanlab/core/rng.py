"""Named random streams derived from one scenario seed.

Every component draws from its own ``random.Random`` so that adding a component, or
drawing more numbers in one, never shifts the numbers another sees. Seeds are derived
with BLAKE2b rather than ``hash()`` so they do not depend on PYTHONHASHSEED.
"""

import hashlib
import random


def derive_seed(seed: int, *names: str) -> int:
    """A 64-bit seed for the stream ``names`` under scenario seed ``seed``."""
    h = hashlib.blake2b(digest_size=8)
    h.update(seed.to_bytes(16, "big", signed=True))
    for name in names:
        encoded = name.encode()
        h.update(len(encoded).to_bytes(4, "big"))
        h.update(encoded)
    return int.from_bytes(h.digest(), "big")


class RngStreams:
    """A family of independent streams, one per component name, from one seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._streams: dict[str, random.Random] = {}

    def stream(self, *names: str) -> random.Random:
        """The stream for ``names``; the same names always give the same object."""
        key = "/".join(names)
        rng = self._streams.get(key)
        if rng is None:
            rng = random.Random(derive_seed(self.seed, *names))
            self._streams[key] = rng
        return rng
