"""verify: re-running a recorded run reproduces its metrics; a tampered record is caught."""

from __future__ import annotations

import json

import pytest

from graphrepro import store
from graphrepro.__main__ import main
from graphrepro.data import DataUnavailable
from graphrepro.experiments import hgcn
from graphrepro.grid import run_grid
from graphrepro.verify import check

CHAPTER = "hgcn-mlp-bug"


@pytest.fixture
def one_record(isolated_store):
    config = hgcn.make_config("disease_lp", "lp", "MLP", 3, "original", normalize_feats=False, max_epochs=20, dropout=0.2)
    try:
        run_grid(CHAPTER, hgcn.EXPERIMENT.name, [config, {**config, "seed": 4}], device="cpu")
    except DataUnavailable as err:
        pytest.skip(str(err))
    paths = sorted((isolated_store / CHAPTER).glob("*.json"))
    assert len(paths) == 2 and store.read_record(paths[0])["members"] == [3, 4]
    return paths[0]


def test_rerun_matches_exactly(one_record):
    result = check(store.read_record(one_record))
    assert result["ok"] and result["mode"] == "exact" and result["largest difference"] == 0


def test_tampered_record_fails_and_cli_exits_nonzero(one_record, capsys):
    record = json.loads(one_record.read_text())
    record["metrics"]["test_roc"] += 0.001
    one_record.write_text(json.dumps(record))
    assert not check(store.read_record(one_record))["ok"]
    assert main(["verify", "--sample", "2", "--chapter", CHAPTER]) == 1
    assert "1 of 2 re-runs match" in capsys.readouterr().out


def test_other_environment_uses_the_stated_tolerance(one_record):
    record = json.loads(one_record.read_text())
    record["packages"]["torch"] = "0.0.0"
    record["metrics"]["test_roc"] += 0.005
    result = check(record, tolerance=0.01)
    assert result["mode"] == "within 0.01" and result["ok"]
    assert not check(record, tolerance=0.001)["ok"]
