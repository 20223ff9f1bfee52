"""gprs-proxies' claims: judged at both ends of T3192's band, and every miss explained by
the ablation's runs (the cell's simulation replaced by a stand-in: it is not the subject)."""

import dataclasses

import pytest

from wwanlab.reproductions import gprs_proxies as gp


class Cell:
    def services(self) -> list[float]:
        return [1.0] * 10  # inside 800-2000 ms


@pytest.fixture
def no_cell_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gp, "emergent_cells", lambda: [("stand-in", [1.0] * 10, 2.3, "")])
    monkeypatch.setattr(gp, "emergent_stats", lambda buffer=None: Cell())


def measured(points: gp.Points) -> gp.Points:
    """The paper's points with a radio loss as our runs measure it (none with LLC ACK)."""
    out = {}
    for key, s in points.items():
        llc = gp.CONFIGS[key[1]][1]
        per = 0.0 if llc else 100 * gp.RADIOS[key[0]].per
        out[key] = dataclasses.replace(s, means={**s.means, "radio_loss_pct": per})
    return out


def test_the_papers_points_hold_every_claim_at_both_ends(no_cell_run: None) -> None:
    p = measured(gp.paper_points())
    found = gp.claims(p, {"variant": p}, p)
    assert [c.holds for c in found] == [True] * 6
    assert all(c.why is None for c in found)
    assert [part.what for part in found[0].parts] == ["T3192 0.5 s", "T3192 1.5 s"]


def test_a_claim_missing_at_one_end_misses_and_shows_each_ablation_run(
    no_cell_run: None,
) -> None:
    p = measured(gp.paper_points())
    key = ("busy", "Snoop", "reno-2002")
    hi = {**p, key: dataclasses.replace(p[key], mean=2.8)}  # above Reno (2.73), not best
    found = gp.claims(p, {"one": p, "two": hi}, hi)
    snoop = found[0]
    assert not snoop.holds
    assert [part.holds for part in snoop.parts] == [True, False]
    assert snoop.why is not None and snoop.why.mechanism == gp.MECHANISMS["snoop-busy"]
    runs = [(r.variant, r.holds) for r in snoop.why.ablation]
    assert runs == [("as run (reproduction's models)", True), ("one", True), ("two", False)]
    assert all(c.holds and c.why is None for c in found[1:])
