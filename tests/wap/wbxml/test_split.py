"""The encoder's cheapest split of a string into inline runs and tokens, against an
exhaustive search over every split of short strings."""

from functools import cache
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wbxml.encoder import _cheapest_pieces, _occurrences, _Splits

INLINE_FRAMING = 2  # STR_I and the terminating NUL (WBXML 5.8.4.1)


def _exhaustive(text: str, options: list[tuple[str, int, int]]) -> int:
    """Cheapest cost over all splits: runs of characters or options, by recursion."""
    size = [len(c.encode()) for c in text]

    @cache
    def best(i: int) -> int:
        if i == len(text):
            return 0
        costs = [INLINE_FRAMING + sum(size[i:j]) + best(j) for j in range(i + 1, len(text) + 1)]
        costs += [cost + best(i + len(s)) for s, cost, _ in options if text.startswith(s, i)]
        return min(costs)

    return best(0)


def _options(text: str, picks: list[tuple[int, int, int]]) -> list[tuple[str, int, int]]:
    """(string, cost, token) options: pieces of ``text`` at (start, length) with a cost."""
    options = []
    for token, (at, length, cost) in enumerate(picks):
        piece = text[at : at + length]
        if piece:
            options.append((piece, cost, token))
    return options


_PICKS = st.lists(st.tuples(st.integers(0, 13), st.integers(1, 5), st.integers(1, 4)), max_size=5)


def _cost_of(pieces: list[str | int], costs: dict[int, int]) -> int:
    return sum(
        costs[p] if isinstance(p, int) else INLINE_FRAMING + len(p.encode()) for p in pieces
    )


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abé€ ", max_size=14), picks=_PICKS)
def test_split_is_cheapest_and_covers_the_text(
    text: str, picks: list[tuple[int, int, int]]
) -> None:
    options = _options(text, picks)
    total, pieces = _cheapest_pieces(text, "utf-8", _occurrences(text, options))
    assert total == _exhaustive(text, options)
    by_token = {token: (s, cost) for s, cost, token in options}
    assert "".join(by_token[p][0] if isinstance(p, int) else p for p in pieces) == text
    assert _cost_of(pieces, {t: c for t, (_, c) in by_token.items()}) == total
    assert not any(isinstance(a, str) and isinstance(b, str) for a, b in pairwise(pieces))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abé€ ", max_size=14), picks=_PICKS)
def test_one_programme_splits_every_suffix_as_the_suffix_alone(
    text: str, picks: list[tuple[int, int, int]]
) -> None:
    """An attribute value's remainders, after each attribute start that could take a
    prefix, are priced from one programme over the whole value."""
    options = _options(text, picks)
    splits = _Splits(text, "utf-8", _occurrences(text, options))
    for start in range(len(text) + 1):
        rest = text[start:]
        alone = _cheapest_pieces(rest, "utf-8", _occurrences(rest, options))
        assert (splits.cost(start), splits.pieces(start)) == alone
