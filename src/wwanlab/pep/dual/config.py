"""Which of paper 003's dual-proxy techniques are on; both sides get the same."""

from dataclasses import dataclass

from wwanlab.core.errors import UsageError


@dataclass(frozen=True, slots=True)
class DualConfig:
    """Each technique switchable on its own (issue 14: "each a component that can be
    switched on alone or combined")."""

    push: bool = False  # 4.2.3 parse-and-push
    chk: bool = False  # 4.1.3 CHK caching: the page's CHK list, aliases fetched once
    delta: bool = False  # 4.1.3 delta encoding of a changed URL against the cached one
    compress: bool = False  # 4.1.1 deflate of fixed-fidelity bodies on the proxy link
    brotli: bool = False  # compress with brotli (RFC 7932) too, keeping the smaller
    fields: bool = False  # relay the origins' header fields (a real browser needs them)

    def __post_init__(self) -> None:
        if self.delta and not self.chk:
            raise UsageError("delta encoding needs CHK caching (the base is a cached CHK)")
        if self.brotli and not self.compress:
            raise UsageError("brotli is a kind of compression: it needs compress")

    @property
    def lists_pages(self) -> bool:
        """Whether a page's main document is followed by a LIST."""
        return self.push or self.chk
