"""An option that drops whitespace never encodes larger than one that keeps it: the
string table is chosen per document, and a document with less text must not lose the
entries the dropped text had brought (Kannel's testcase.wml did: ignorable 469 octets,
preserve 386)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wbxml import decode, encode, parse_xml
from wwanlab.wap.wbxml.tree import canonical_events

INDENT = st.sampled_from(["\n", "\n  ", "\n    ", "\n        ", "\n\n  ", " "])
WORD = st.sampled_from(["Back", "alpha", "test page", "lots of", "x", ""])


@st.composite
def indented(draw: st.DrawFn, depth: int = 0) -> str:
    """An element whose children are indented text and elements, as people write XML."""
    tag = draw(st.sampled_from(["a", "b", "p"]))
    children = []
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        children.append(draw(indented(depth + 1)))
    text = draw(INDENT) + draw(WORD) + draw(INDENT)
    return f"<{tag}>{draw(INDENT)}{text.join(children) or text}{draw(INDENT)}</{tag}>"


@settings(max_examples=150, deadline=None)
@given(body=indented())
def test_more_dropped_never_larger(body: str) -> None:
    xml = f"<root>{body}</root>".encode()
    size = {mode: len(encode(xml, whitespace=mode)) for mode in ("preserve", "ignorable", "trim")}
    assert size["trim"] <= size["ignorable"] <= size["preserve"], size
    ignorable = encode(xml, whitespace="ignorable")
    kept = parse_xml(xml, whitespace="ignorable").root
    assert canonical_events(decode(ignorable).root) == canonical_events(kept)
