"""Every reproduction's claim tests, applied to the paper's own published numbers, hold.

A claim test that the paper's own table fails is a defect of the test (issue: claim
tests the papers pass). Each reproduction gives ``on_paper()``: the same test functions
its body applies to our runs, fed the numbers the paper prints.
"""

import pytest

from wwanlab.reproductions import PAPERS, load


@pytest.mark.parametrize("name", [p.reproduction for p in PAPERS])
def test_claim_tests_hold_on_the_papers_own_numbers(name: str) -> None:
    reproduction = load()[name]
    assert reproduction.on_paper is not None, f"{name} does not test its claims on the paper"
    claims = list(reproduction.on_paper())
    assert claims, f"{name}: no claim was tested on the paper's numbers"
    failing = [f"{c.claim} (paper data: {c.ours})" for c in claims if not c.holds]
    assert not failing, f"{name}: the paper's own numbers fail: {failing}"
    assert not any(c.extension for c in claims), "extensions are not the paper's claims"
