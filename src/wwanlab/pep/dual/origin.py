"""An origin access that serves a ``Page`` at once: the wired side as the paper had it,
"never the bottleneck" (paper 003 2.1), for runs that study the proxy link alone."""

from wwanlab.core.events import Event
from wwanlab.web.fetcher import FetchFailed, ObjectArrived
from wwanlab.web.page import Page

NOT_FOUND = 404  # RFC 9110 15.5.5


class PageOrigin:
    """Answers each fetch from ``page.site()`` (404 for any other URL) without delay;
    ``fail`` lists URLs whose fetch fails as an unreachable origin's would."""

    def __init__(self, page: Page, fail: frozenset[str] = frozenset()) -> None:
        self.page = page
        self.fail = fail
        self.fetched: list[str] = []
        self._site = page.site()
        self._events: list[Event] = []

    def fetch(self, url: str, now: float) -> None:
        self.fetched.append(url)
        obj = self._site.get(url)
        if url in self.fail:
            self._events.append(FetchFailed(url, "origin unreachable", now))
        elif obj is None:
            self._events.append(
                ObjectArrived(url, NOT_FOUND, b"", "text/plain", "identity", 0, now)
            )
        else:
            self._events.append(
                ObjectArrived(url, 200, obj.body, obj.content_type, obj.encoding, 0, now)
            )

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None
