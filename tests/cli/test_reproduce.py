import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab
from tests.experiments.test_reproduction import TOY

from wwanlab import reproductions
from wwanlab.experiments import reproduction as registry


@pytest.fixture(autouse=True)
def empty_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests see only the reproductions they register, not the papers' ones."""
    monkeypatch.setattr(reproductions, "PACKAGES", [])
    monkeypatch.setattr(registry, "REPRODUCTIONS", {})


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(TOY)
    yield
    del registry.REPRODUCTIONS["toy"]


def test_empty_registry(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert wwanlab(capsys, monkeypatch, "reproduce", "all") == (
        0,
        "no reproductions are registered\n",
        "",
    )
    code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["reproductions"] == []
    assert [p["paper"] for p in doc["papers"]] == ["000", "001", "002", "003", "004"]
    assert {p["status"] for p in doc["papers"]} == {"not yet"}


def test_unknown_name_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "reproduce", "nope")
    assert (code, out) == (2, "")
    assert err == "wwanlab: error: unknown reproduction 'nope' (known: none registered)\n"


def test_reproduce_one_with_json(
    toy: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list", "--json")
    assert json.loads(out)["reproductions"] == [
        {"name": "toy", "paper": "papers/none", "title": "A toy reproduction", "extensions": []}
    ]
    report = tmp_path / "report"
    args = ["reproduce", "all", "--quick", "--out", str(report), "--db", str(tmp_path / "w.db")]
    code, out, err = wwanlab(capsys, monkeypatch, *args, "--jobs", "1", "--json")
    assert code == 0, err
    (entry,) = json.loads(out)["reproductions"]
    assert entry["name"] == "toy" and entry["held"] == 1 and entry["tables"] == ["toy_draws"]
    assert entry["claims"][0]["holds"] is True
    assert (report / "index.html").exists() and (report / "toy.html").exists()
    code, out, _ = wwanlab(capsys, monkeypatch, *args, "--jobs", "1")
    assert code == 0 and "1 of 1 of the paper's claims hold" in out


def test_list_shows_every_paper_and_derives_status_from_the_registry(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # registering a module under a paper's reproduction name is what makes it reproduced
    fake = registry.Reproduction("gprs-proxies", "papers/002", "Snoop and Split", TOY.body)
    registry.register(fake)
    try:
        code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list", "--json")
        status = {p["reproduction"]: p["status"] for p in json.loads(out)["papers"]}
        assert status == {
            "wap-vs-tcp": "not yet",
            "wsp-webservices": "not yet",
            "gprs-proxies": "reproduced",
            "wwan-web": "not yet",
            "wave-and-wait": "not yet",
        }
        code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list")
        assert code == 0 and out.count("not yet") == 4 and "reproduced" in out
    finally:
        del registry.REPRODUCTIONS["gprs-proxies"]


def test_list_of_one_name_shows_only_it_and_refuses_an_unknown_one(
    toy: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list", "toy", "--json")
    doc = json.loads(out)
    assert code == 0
    assert [r["name"] for r in doc["reproductions"]] == ["toy"]
    assert doc["papers"] == []  # toy is no paper's reproduction
    code, out, _ = wwanlab(capsys, monkeypatch, "reproduce", "--list", "all", "--json")
    assert [r["name"] for r in json.loads(out)["reproductions"]] == ["toy"]
    assert len(json.loads(out)["papers"]) == 5
    code, out, err = wwanlab(capsys, monkeypatch, "reproduce", "--list", "nosuch")
    assert (code, out) == (2, "")
    assert err == "wwanlab: error: unknown reproduction 'nosuch' (known: toy)\n"
