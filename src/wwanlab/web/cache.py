"""The browser's HTTP cache (RFC 9111), the revisit baseline of paper 003 section 4.1.3.

Mozilla 1.4, the paper's browser (section 3), kept a private HTTP cache: a response it
stored is reused without a request while it is fresh, and revalidated with a conditional
GET once stale (a 304 then gives back the stored body). A technique that saves bytes on a
revisit (CHK caching, delta encoding) is worth only what this cache does not already
save.

Freshness (RFC 9111 4.2): the lifetime is ``max-age`` (Cache-Control), else Expires minus
Date, else, for a response with Last-Modified, the heuristic ``HEURISTIC_FRACTION`` of the
time between Last-Modified and Date (4.2.2); the age is 4.2.3's ``current_age``. A
response with neither a lifetime nor a validator is not stored: it could be neither
reused nor revalidated. ``no-store`` is never stored; ``no-cache`` is stored and always
revalidated (5.2.2.4).

The clock is the caller's, in seconds; HTTP dates map to it through ``EPOCH`` (the
simulated clock's 0). Sans-IO: no time is read, nothing is sent.
"""

import email.utils
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from wwanlab.web.page import WebObject

EPOCH = datetime(2003, 10, 1, tzinfo=UTC).timestamp()  # clock 0: paper 003's year (assumed)
HEURISTIC_FRACTION = 0.1  # RFC 9111 4.2.2: "a typical setting of this fraction might be 10%"
Headers = tuple[tuple[str, str], ...]


def http_date(clock: float) -> str:
    """The IMF-fixdate (RFC 9110 5.6.7) of ``clock`` seconds after ``EPOCH``."""
    return email.utils.formatdate(EPOCH + clock, usegmt=True)


def parse_date(text: str | None) -> float | None:
    """An HTTP date as seconds on the clock; None when absent or unparsable (RFC 9111
    4.2: an invalid date is treated as in the past, which callers do)."""
    if not text:
        return None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp() - EPOCH


def header(headers: Headers, name: str) -> str | None:
    name = name.lower()
    return next((v for k, v in headers if k.lower() == name), None)


def directives(headers: Headers) -> dict[str, str]:
    """Cache-Control directives (RFC 9111 5.2), names lower-cased, values unquoted."""
    out: dict[str, str] = {}
    for key, value in headers:
        if key.lower() != "cache-control":
            continue
        for item in value.split(","):
            name, _, argument = item.strip().partition("=")
            if name:
                out[name.lower()] = argument.strip().strip('"')
    return out


def _seconds(text: str | None) -> float | None:
    return float(text) if text is not None and text.isdigit() else None


@dataclass(frozen=True)
class Stored:
    """A stored 200 response and when it was requested and received (RFC 9111 4.2.3)."""

    url: str
    body: bytes
    content_type: str
    encoding: str
    headers: Headers
    request_time: float
    response_time: float

    @property
    def lifetime(self) -> float:
        """Freshness lifetime (RFC 9111 4.2.1), heuristic (4.2.2) where none is given."""
        cc = directives(self.headers)
        if "no-cache" in cc:
            return 0.0
        max_age = _seconds(cc.get("max-age"))
        if max_age is not None:
            return max_age
        date = parse_date(header(self.headers, "date"))
        if date is None:
            date = self.response_time
        expires = header(self.headers, "expires")
        if expires is not None:
            until = parse_date(expires)
            return 0.0 if until is None else max(0.0, until - date)
        modified = parse_date(header(self.headers, "last-modified"))
        if modified is None:
            return 0.0
        return max(0.0, HEURISTIC_FRACTION * (date - modified))

    def age(self, now: float) -> float:
        """``current_age`` at ``now`` (RFC 9111 4.2.3)."""
        date = parse_date(header(self.headers, "date"))
        apparent = max(0.0, self.response_time - date) if date is not None else 0.0
        age_value = _seconds(header(self.headers, "age")) or 0.0
        corrected = age_value + (self.response_time - self.request_time)
        return max(apparent, corrected) + (now - self.response_time)

    def fresh(self, now: float) -> bool:
        return self.lifetime > self.age(now)

    def conditions(self) -> Headers:
        """The conditional request's header fields (RFC 9110 13.1.2, 13.1.3): the
        entity tag and the modification date the response carried."""
        out = []
        etag = header(self.headers, "etag")
        if etag is not None:
            out.append(("If-None-Match", etag))
        modified = header(self.headers, "last-modified")
        if modified is not None:
            out.append(("If-Modified-Since", modified))
        return tuple(out)


FRESH = "fresh"  # reuse without a request
STALE = "stale"  # revalidate: send ``Lookup.conditions``
MISS = "miss"


@dataclass(frozen=True)
class Lookup:
    outcome: str  # FRESH, STALE or MISS
    stored: Stored | None = None

    @property
    def conditions(self) -> Headers:
        return () if self.stored is None else self.stored.conditions()


class HttpCache:
    """A private cache (one browser's) of 200 responses by URL."""

    def __init__(self) -> None:
        self._entries: dict[str, Stored] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, url: str, now: float) -> Lookup:
        stored = self._entries.get(url)
        if stored is None:
            return Lookup(MISS)
        if stored.fresh(now):
            return Lookup(FRESH, stored)
        return Lookup(STALE, stored) if stored.conditions() else Lookup(MISS)

    def store(
        self,
        url: str,
        headers: Headers,
        body: bytes,
        content_type: str,
        encoding: str,
        request_time: float,
        response_time: float,
    ) -> bool:
        """Keep a 200 response if it can be reused or revalidated; whether it was kept."""
        stored = Stored(url, body, content_type, encoding, headers, request_time, response_time)
        if "no-store" in directives(headers):
            self._entries.pop(url, None)
            return False
        if stored.lifetime <= 0 and not stored.conditions():
            self._entries.pop(url, None)
            return False
        self._entries[url] = stored
        return True

    def freshen(self, url: str, headers: Headers, request_time: float, now: float) -> Stored:
        """A 304 for ``url`` arrived: the stored response with the 304's header fields
        replacing its own (RFC 9111 4.3.4) and its clock restarted; KeyError if nothing
        was stored."""
        stored = self._entries[url]
        names = {k.lower() for k, _ in headers}
        merged = tuple((k, v) for k, v in stored.headers if k.lower() not in names) + headers
        updated = replace(stored, headers=merged, request_time=request_time, response_time=now)
        self._entries[url] = updated
        return updated


def etag_of(body: bytes) -> str:
    """A strong entity tag (RFC 9110 8.8.3) that changes whenever the bytes do."""
    return '"' + hashlib.sha1(body).hexdigest()[:16] + '"'


def not_modified(request_headers: Headers, etag: str | None, modified: float | None) -> bool:
    """Whether an origin answers 304 (RFC 9110 13.2.2): If-None-Match when present (a
    weak comparison, 13.1.2), else If-Modified-Since against the modification time."""
    match = header(request_headers, "if-none-match")
    if match is not None:
        if etag is None:
            return False
        tags = [t.strip().removeprefix("W/") for t in match.split(",")]
        return "*" in tags or etag.removeprefix("W/") in tags
    since = parse_date(header(request_headers, "if-modified-since"))
    if since is None or modified is None:
        return False
    return math.floor(modified) <= since


def served_headers(obj: WebObject, date: float) -> Headers:
    """The caching header fields an origin sends with ``obj`` at ``date``: Date always;
    Last-Modified and a strong ETag for static content (``obj.modified`` set), as Apache
    sent them for files; Cache-Control max-age when the object has one."""
    out = [("Date", http_date(date))]
    if obj.modified is not None:
        out += [("Last-Modified", http_date(obj.modified)), ("ETag", etag_of(obj.body))]
    if obj.max_age is not None:
        out.append(("Cache-Control", f"max-age={obj.max_age}"))
    return tuple(out)


def prime(cache: HttpCache, objects: Iterable[WebObject], date: float) -> None:
    """Store ``objects`` as a visit at ``date`` would have (each 200 received at once):
    the browser's cache after a first visit through a proxy that returns no header
    fields (the dual proxy's channel carries bodies only)."""
    for obj in objects:
        cache.store(
            obj.url,
            served_headers(obj, date),
            obj.body,
            obj.content_type,
            obj.encoding,
            date,
            date,
        )
