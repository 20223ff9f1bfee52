"""``wwanlab links``: the table, --json, --verbose, and exit code 2 for an unknown preset."""

import json

from typer.testing import CliRunner

from wwanlab.cli import app
from wwanlab.link.presets import PRESETS

runner = CliRunner()


def test_table_lists_every_preset_with_its_paper() -> None:
    result = runner.invoke(app, ["links"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in PRESETS:
        assert name in result.output
    assert "9.6 kbit/s" in result.output
    assert "paper 004" in result.output


def test_json_is_one_object_with_every_preset_and_its_assumptions() -> None:
    result = runner.invoke(app, ["links", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["name"] for p in data["presets"]] == list(PRESETS)
    serial = data["presets"][0]
    assert serial["mtu"] == 1500
    assert serial["configured"]["down"]["rate_bps"] == 9600
    assert serial["configured"]["up"]["loss"] == 0.0
    assert any("PPP" in a for a in serial["assumptions"])
    busy = next(p for p in data["presets"] if p["name"] == "gprs-busy")
    assert busy["configured"]["down"]["frame_loss"] == 0.023


def test_named_presets_only() -> None:
    result = runner.invoke(app, ["links", "cdma-1x", "dialup-56k", "--json"])
    assert result.exit_code == 0, result.output
    assert [p["name"] for p in json.loads(result.stdout)["presets"]] == ["cdma-1x", "dialup-56k"]


def test_verbose_shows_assumptions() -> None:
    result = runner.invoke(app, ["links", "vdeldrop", "-v"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "the first phase is On" in result.output
    assert "loss knob" in result.output


def test_verbose_explains_the_gprs_radio_and_its_options() -> None:
    result = runner.invoke(app, ["links", "gprs-one-user", "-v"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "down: TBF set-up on an idle direction: mean 235.4, p95 447.2 ms" in out
    assert "released 0.5 s after" in out
    assert "up: TBF set-up on an idle direction: mean 200," in out
    assert "latency overlaps between packets" in out
    for key in ("tbf:", "access:", "overlap:", "llc_retry:", "reselection:", "t3192:"):
        assert key in out
    three = runner.invoke(app, ["links", "gprs-3plus1", "-v"], env={"COLUMNS": "250"}).output
    assert "reselection: 6 per hour, mean 4.5 s each" in three
    assert "stall: 6 per hour, mean 5 s each" in three
    plain = runner.invoke(app, ["links", "gprs-3plus1[stalls=false]", "--json"])
    assert plain.exit_code == 0, plain.output
    (doc,) = json.loads(plain.stdout)["presets"]
    assert doc["options"] == {"stalls": False}
    assert list(doc["configured"]["down"]["outages"]) == ["reselection"]
    bad = runner.invoke(app, ["links", "gprs-3plus1[stall=false]"])
    assert bad.exit_code == 2 and "has no option 'stall'" in bad.output


def test_unknown_preset_exits_2_naming_it() -> None:
    for args in (["links", "nope"], ["links", "nope", "--json"], ["links", "cdma-1x", "nope"]):
        result = runner.invoke(app, args, env={"COLUMNS": "200"})
        assert result.exit_code == 2
        assert "unknown link preset 'nope'" in result.output


def test_a_pipe_gets_whole_rows_whatever_the_terminal_width() -> None:
    """Off a terminal (CliRunner's stdout is not one) each preset is one whole row, so
    that ``wwanlab links | grep gprs`` finds every name and its numbers on one line."""
    result = runner.invoke(app, ["links"], env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.output
    for name, preset in PRESETS.items():
        rows = [line for line in result.output.splitlines() if f"│ {name} " in line]
        assert len(rows) == 1, (name, result.output)
        assert preset.citation.split(" ", 1)[1][:10] in rows[0]
