"""``compile_wml`` against Kannel 1.4.5's own WML compiler (``wml_tester``).

Kannel writes WBXML 1.1, so ours is compiled at 1.1 too. Trees are compared with
``canonical_events`` (whitespace-normalised text), sizes only for decks without ``pre``:
Kannel collapses whitespace inside ``pre`` (and has no WML 1.2 token for it), where we
keep it as WML 11.8 asks, so those decks are not the same document.
"""

import subprocess
from pathlib import Path

import pytest

from wwanlab.wap.wbxml import decode
from wwanlab.wap.wbxml.tree import canonical_events
from wwanlab.wap.wbxml.wmlc import compile_wml

WML_TESTER = Path("/usr/lib/kannel/test/wml_tester")
pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not WML_TESTER.exists(), reason="kannel-extras missing"),
]
DECKS = sorted((Path(__file__).parent / "corpus").glob("*.wml")) + [
    p for p in (WML_TESTER.parent / "hello.wml", WML_TESTER.parent / "testcase.wml") if p.exists()
]


def kannel_compile(deck: Path, tmp: Path) -> bytes:
    out = tmp / "kannel.wmlc"
    done = subprocess.run(
        [str(WML_TESTER), "-b", "-f", str(out), str(deck)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr[-500:]
    return out.read_bytes()


@pytest.mark.parametrize("deck", DECKS, ids=lambda p: p.name)
def test_same_deck_and_never_larger_than_kannel(deck: Path, tmp_path: Path) -> None:
    theirs = kannel_compile(deck, tmp_path)
    ours = compile_wml(deck.read_bytes(), "1.1")
    assert ours[:2] == theirs[:2]  # WBXML 1.1, same WML public id
    assert canonical_events(decode(ours).root) == canonical_events(decode(theirs).root)
    if b"<pre" not in deck.read_bytes():
        assert len(ours) <= len(theirs)
