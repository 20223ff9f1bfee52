"""A cache for pure functions of small inputs that repeat, with its memory bounded.

A gateway sees the same few values again and again (a phone's Accept list, an origin's
Content-Type and Server fields, the header block a phone sends with every request), but
the values come from the network: ``small_input_cache`` keeps at most ``entries``
results, and only of calls whose text arguments (str, bytes, and tuples of them) total
``max_chars`` characters or octets at most; a longer call is computed each time.
"""

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

DEFAULT_ENTRIES = 256


def _size(values: tuple[Any, ...]) -> int:
    """Characters or octets of the text in ``values``, tuples of text included."""
    size = 0
    for value in values:
        kind = type(value)
        if kind is str or kind is bytes:
            size += len(value)
        elif kind is tuple:
            size += _size(value)
    return size


def small_input_cache(
    max_chars: int, entries: int = DEFAULT_ENTRIES
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: cache the calls of a pure function whose text arguments are short."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        cached: Any = functools.lru_cache(maxsize=entries)(function)

        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if _size(args) + _size(tuple(kwargs.values())) <= max_chars:
                result: R = cached(*args, **kwargs)
                return result
            return function(*args, **kwargs)

        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return decorate
