"""The small-input cache: short calls computed once, long ones every time, few kept."""

from wwanlab.core.memo import small_input_cache


def test_short_calls_are_cached_and_long_ones_computed_each_time():
    calls: list[tuple[str, ...]] = []

    @small_input_cache(max_chars=6, entries=2)
    def join(parts: tuple[str, ...], sep: bytes = b"") -> str:
        calls.append(parts)
        return sep.decode().join(parts)

    assert [join(("ab", "cd")) for _ in range(3)] == ["abcd"] * 3
    assert join(("abcd", "efg")) == join(("abcd", "efg")) == "abcdefg"  # 7 characters
    assert join(("a",), sep=b"-----") == join(("a",), sep=b"-----") == "a"  # 6 with sep
    assert calls == [("ab", "cd"), ("abcd", "efg"), ("abcd", "efg"), ("a",)]
    join(("x",))
    join(("y",))
    assert join.cache_info().currsize == 2  # type: ignore[attr-defined]
