"""The CHK-indexed object store each side of the dual proxy keeps (paper 003 4.1.3: "the
client as well as the server proxy indexes web-objects by their SHA-1 fingerprint").

Bodies are held once per CHK, however many URLs alias them; ``url_chk`` remembers the
latest CHK seen for each URL (the base of the next delta) and ``pages`` the embedded
URLs of each page as last listed. The store outlives one download: the caller keeps it
and hands it to the next visit's proxy. Least recently used bodies go first once
``capacity`` octets are held.
"""

from collections import OrderedDict
from dataclasses import dataclass

DEFAULT_CAPACITY = 64 * 1024 * 1024  # octets of bodies; a phone-sized browser cache


@dataclass(frozen=True, slots=True)
class Stored:
    """A body with the headers a browser needs to use it again."""

    content_type: str
    encoding: str
    body: bytes
    fields: str = ""  # the origin's other header fields (``messages.WireObject.fields``)


class ChkStore:
    """Bodies by CHK, least recently used evicted past ``capacity`` octets."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._bodies: OrderedDict[bytes, Stored] = OrderedDict()
        self._size = 0
        self.url_chk: dict[str, bytes] = {}
        self.pages: dict[str, tuple[str, ...]] = {}

    def __contains__(self, chk: bytes) -> bool:
        return chk in self._bodies

    def __len__(self) -> int:
        return len(self._bodies)

    @property
    def size(self) -> int:
        """Octets of bodies held."""
        return self._size

    def get(self, chk: bytes) -> Stored | None:
        stored = self._bodies.get(chk)
        if stored is not None:
            self._bodies.move_to_end(chk)
        return stored

    def put(self, chk: bytes, stored: Stored, url: str | None = None) -> None:
        """Hold ``stored`` (whose CHK the caller has checked) and, given ``url``, note it
        as that URL's current version."""
        if url is not None:
            self.url_chk[url] = chk
        if chk in self._bodies:
            self._bodies.move_to_end(chk)
            return
        if len(stored.body) > self.capacity:
            return
        self._bodies[chk] = stored
        self._size += len(stored.body)
        while self._size > self.capacity:
            _, old = self._bodies.popitem(last=False)
            self._size -= len(old.body)

    def base_for(self, url: str) -> bytes | None:
        """The CHK of the version of ``url`` held, if its body is still here."""
        held = self.url_chk.get(url)
        return held if held is not None and held in self._bodies else None
