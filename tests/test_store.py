"""The run store: atomic writes, resuming an interrupted grid, stable keys, stale records."""

from __future__ import annotations

import json
import os

import pytest
import torch

from graphrepro import experiments, grid, store
from graphrepro.experiments import Experiment

CONFIG = {"dataset": "toy", "model": "MLP", "variant": "none", "seed": 0, "lr": 0.01}


def test_key_ignores_field_order_and_tracks_content_and_version():
    shuffled = dict(reversed(list(CONFIG.items())))
    assert store.config_key("e", 1, CONFIG) == store.config_key("e", 1, shuffled)
    assert store.config_key("e", 1, CONFIG) != store.config_key("e", 2, CONFIG)
    assert store.config_key("e", 1, CONFIG) != store.config_key("e", 1, {**CONFIG, "seed": 1})
    assert store.config_key("e", 1, CONFIG) != store.config_key("f", 1, CONFIG)


def test_key_is_stable_across_releases():
    """Committed records are found by key: changing the hashing scheme would orphan all of them."""
    assert store.config_key("e", 1, CONFIG) == "8c4b8858fd60722b288c"


def _record(key="k1"):
    return {"key": key, "experiment": "hgcn-fullbatch", "version": 1, "config": CONFIG, "metrics": {"test_roc": 0.5}}


def test_write_is_atomic(isolated_store, monkeypatch):
    store.write_record("ch", _record())
    before = store.record_path("ch", "k1").read_text()

    def crash(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        store.write_record("ch", {**_record(), "metrics": {"test_roc": 0.9}})
    assert store.record_path("ch", "k1").read_text() == before
    assert [p.name for p in (isolated_store / "ch").iterdir()] == ["k1.json"]


def test_records_are_sorted_json_with_a_content_digest(isolated_store):
    path = store.write_record("ch", _record())
    text = path.read_text()
    written = json.loads(text)
    assert {k: v for k, v in written.items() if k != "digest"} == _record()
    assert text == json.dumps(written, sort_keys=True, indent=1) + "\n"
    assert store.digest_matches(written)
    written["metrics"]["test_roc"] = 0.51
    assert not store.digest_matches(written)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_value_json_cannot_hold_is_refused_and_nothing_written(isolated_store, bad):
    with pytest.raises(ValueError, match="JSON cannot store"):
        store.write_record("ch", {**_record(), "config": {**CONFIG, "tree_gamma": bad}})
    assert not (isolated_store / "ch").exists() or not list((isolated_store / "ch").iterdir())


def test_non_standard_json_in_a_file_is_refused(isolated_store):
    path = store.record_path("ch", "nan")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_record()).replace("0.5", "NaN"))
    with pytest.raises(ValueError, match="damaged run record .*nan.json"):
        store.read_record(path)


def test_damaged_record_names_the_file(isolated_store):
    path = store.record_path("ch", "bad")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        store.records("ch")


def _counting_experiment(calls, fail_at=None, version=1):
    def train(data, configs, device):
        out = []
        for config in configs:
            calls.append(config["seed"])
            if fail_at is not None and config["seed"] == fail_at:
                raise KeyboardInterrupt("interrupted")
            out.append({"val_acc": config["seed"] / 10, "test_acc": config["seed"] / 10})
        return out

    return Experiment("counting", version, dict, lambda c: "data", lambda c: None, train)


def test_interrupted_grid_resumes_without_retraining(isolated_store, monkeypatch):
    calls: list[int] = []
    configs = [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": s} for s in range(5)]
    monkeypatch.setattr(experiments, "registry", lambda: {"counting": _counting_experiment(calls, fail_at=3)})
    with pytest.raises(KeyboardInterrupt):
        grid.run_grid("ch", "counting", configs, device="cpu", max_members=1)
    assert calls == [0, 1, 2, 3]
    assert len(list((isolated_store / "ch").glob("*.json"))) == 3
    assert not list((isolated_store / "ch").glob(".tmp-*"))

    calls.clear()
    monkeypatch.setattr(experiments, "registry", lambda: {"counting": _counting_experiment(calls)})
    frame = grid.run_grid("ch", "counting", configs, device="cpu")
    assert calls == [3, 4]  # the rest trains as one batch of the two missing seeds
    assert [r["members"] for r in store.records("ch") if r["config"]["seed"] >= 3] == [[3, 4], [3, 4]]
    assert list(frame.seed) == [0, 1, 2, 3, 4]
    assert list(frame.test_acc) == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert {"dataset", "model", "variant", "seed", "val_acc", "test_acc", "wall_s", "device"} <= set(frame.columns)


def test_version_bump_makes_records_stale(isolated_store, monkeypatch):
    calls: list[int] = []
    configs = [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": 0}]
    monkeypatch.setattr(experiments, "registry", lambda: {"counting": _counting_experiment(calls, version=1)})
    grid.run_grid("ch", "counting", configs, device="cpu")
    assert len(store.load("ch")) == 1 and store.stale("ch") == []

    monkeypatch.setattr(experiments, "registry", lambda: {"counting": _counting_experiment(calls, version=2)})
    assert store.load("ch").empty
    assert len(store.stale("ch")) == 1
    grid.run_grid("ch", "counting", configs, device="cpu")
    assert calls == [0, 0] and len(store.load("ch")) == 1


def test_record_holds_environment(isolated_store, monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(experiments, "registry", lambda: {"counting": _counting_experiment(calls)})
    grid.run_grid("ch", "counting", [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": 1}], device="cpu")
    (record,) = store.records("ch")
    assert record["device"] == "cpu" and record["threads"] == 1  # training runs on one intra-op thread
    assert record["packages"]["torch"].startswith("2.13.0")
    assert {"git_commit", "wall_s", "created", "hardware"} <= set(record)
