"""The front page says what the registry says: which papers are reproduced."""

import re
from pathlib import Path

from wwanlab import reproductions

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_first_paragraph_matches_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    first = text.split("\n\n")[1]  # the paragraph under the title
    reproduced, _, not_yet = first.partition("Not yet reproduced")
    status = reproductions.status()
    done = [p for p in status if p["status"] == "reproduced"]
    assert f"Reproduced today: {len(done)} of the {len(status)} papers" in reproduced
    for p in status:
        where = reproduced if p["status"] == "reproduced" else not_yet
        assert re.search(rf"paper\s+{p['paper']}\b", where), p["paper"]
        assert f"`{p['reproduction']}`" in where, p["reproduction"]
