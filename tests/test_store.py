"""The run store: atomic writes, resuming an interrupted grid, stable keys, stale records."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from graphrepro import catalog, checkpoints, grid, paths, store
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


def test_the_stamp_changes_with_every_record_added_even_within_one_clock_tick(isolated_store):
    assert store.stamp("ch") == (str(isolated_store / "ch"), 0, 0)
    store.write_record("ch", _record("k1"))
    first = store.stamp("ch")
    store.write_record("ch", _record("k2"))
    os.utime(isolated_store / "ch", ns=(first[1], first[1]))  # the second record lands within the first one's tick
    assert store.stamp("ch")[1] == first[1] and store.stamp("ch") != first


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


KILLED_WHILE_WRITING = """
import os, signal, sys
from graphrepro import store
os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # die between the write and the rename
store.write_record("ch", {"key": "k", "experiment": "e", "version": 1, "config": {}, "metrics": {}})
"""


def test_a_writer_killed_mid_write_leaves_no_record_and_the_next_grid_sweeps_its_file(isolated_store, monkeypatch):
    done = subprocess.run([sys.executable, "-c", KILLED_WHILE_WRITING], env={**os.environ, "GRAPHREPRO_RESULTS": str(isolated_store)})
    assert done.returncode == -9
    folder = isolated_store / "ch"
    [abandoned] = folder.glob(".tmp-*")
    assert json.loads(abandoned.read_text())["key"] == "k" and store.records("ch") == []
    live = folder / f"{paths.temporary_prefix()}still-writing.partial"  # this process is alive
    elsewhere = folder / ".tmp-4194303-00000000-another-host.partial"  # a pid not running here, elsewhere
    legacy = folder / ".tmp-before-names-said-who.json"
    for path in (live, elsewhere, legacy):
        path.write_text("{")
    assert store.records("ch") == []  # none of them reads as a (damaged) record

    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment([])})
    grid.run_grid("ch", "counting", [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": 0}], device="cpu")
    assert sorted(p.name for p in folder.glob(".tmp-*")) == sorted(p.name for p in (live, elsewhere, legacy))
    assert len(store.records("ch")) == 1


def test_interrupted_grid_resumes_without_retraining(isolated_store, monkeypatch):
    calls: list[int] = []
    configs = [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": s} for s in range(5)]
    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment(calls, fail_at=3)})
    with pytest.raises(KeyboardInterrupt):
        grid.run_grid("ch", "counting", configs, device="cpu", max_members=1)
    assert calls == [0, 1, 2, 3]
    assert len(list((isolated_store / "ch").glob("*.json"))) == 3
    assert not list((isolated_store / "ch").glob(".tmp-*"))

    calls.clear()
    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment(calls)})
    frame = grid.run_grid("ch", "counting", configs, device="cpu")
    assert calls == [3, 4]  # the rest trains as one batch of the two missing seeds
    assert [r["members"] for r in store.records("ch") if r["config"]["seed"] >= 3] == [[3, 4], [3, 4]]
    assert list(frame.seed) == [0, 1, 2, 3, 4]
    assert list(frame.test_acc) == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert {"dataset", "model", "variant", "seed", "val_acc", "test_acc", "wall_s", "device"} <= set(frame.columns)


def test_version_bump_makes_records_stale(isolated_store, monkeypatch):
    calls: list[int] = []
    configs = [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": 0}]
    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment(calls, version=1)})
    grid.run_grid("ch", "counting", configs, device="cpu")
    assert len(catalog.load("ch")) == 1 and catalog.stale("ch") == []

    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment(calls, version=2)})
    assert catalog.load("ch").empty
    assert len(catalog.stale("ch")) == 1
    grid.run_grid("ch", "counting", configs, device="cpu")
    assert calls == [0, 0] and len(catalog.load("ch")) == 1


def test_record_holds_environment(isolated_store, monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(catalog, "experiments", lambda: {"counting": _counting_experiment(calls)})
    grid.run_grid("ch", "counting", [{"dataset": "toy", "model": "MLP", "variant": "none", "seed": 1}], device="cpu")
    (record,) = store.records("ch")
    assert record["device"] == "cpu" and record["threads"] == 1  # training runs on one intra-op thread
    assert record["packages"]["torch"].startswith("2.13.0")
    assert {"git_commit", "wall_s", "created", "hardware"} <= set(record)


def _artefact_experiment():
    def train(data, configs, device):
        return [{"test_mrr": 0.5, "artefacts": {"ranks": {"head": np.arange(5) + c["seed"], "tail": np.ones(3)}}}
                for c in configs]

    return Experiment("ranks", 1, dict, lambda c: "d", lambda c: None, train)


def test_artefacts_live_beside_their_record_and_load_verified(isolated_store, monkeypatch):
    monkeypatch.setattr(catalog, "experiments", lambda: {"ranks": _artefact_experiment()})
    grid.run_grid("ch", "ranks", [{"seed": 0}, {"seed": 1}], device="cpu", workers=1)
    records = {r["config"]["seed"]: r for r in store.records("ch")}
    assert "artefacts" not in records[1]["metrics"] and set(records[1]["artefacts"]) == {"ranks"}
    assert store.digest_matches(records[1])  # the artefact's sha256 is part of the record's content
    ranks = store.load_artefact("ch", records[1], "ranks")
    assert ranks["head"].tolist() == [1, 2, 3, 4, 5] and ranks["tail"].shape == (3,)
    assert 0 < store.artefact_bytes() < 10_000
    path = isolated_store / "ch" / store.ARTEFACTS / records[1]["key"] / "ranks.json"
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    with pytest.raises(ValueError, match="does not match its record's sha256"):
        store.load_artefact("ch", records[1], "ranks")
    with pytest.raises(KeyError, match="no artefact 'checkpoint'"):
        store.load_artefact("ch", records[1], "checkpoint")


def test_committed_artefacts_stay_within_the_budget(monkeypatch):
    monkeypatch.delenv("GRAPHREPRO_RESULTS")
    assert store.artefact_bytes() <= store.ARTEFACT_BUDGET_BYTES


@pytest.mark.slow
def test_two_workers_give_the_records_of_one(tmp_path, monkeypatch):
    """The same grid on two worker processes and on one: identical metrics, every record whole."""
    from graphrepro.data import DataUnavailable
    from graphrepro.experiments import hgcn

    base = hgcn.make_config("disease_lp", "lp", "GCN", 0, "debugged", normalize_feats=False, max_epochs=12)
    configs = [{**base, "dropout": d, "seed": s} for d in (0.0, 0.5) for s in (0, 1)]
    frames = {}
    for workers in (1, 2):
        monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / f"w{workers}"))
        try:
            frames[workers] = grid.run_grid("ch", hgcn.EXPERIMENT.name, configs, device="cpu", workers=workers)
        except DataUnavailable as err:
            pytest.skip(str(err))
    metrics = ["val_roc", "val_ap", "test_roc", "test_ap", "best_epoch"]
    assert frames[1][metrics].equals(frames[2][metrics])
    records = store.records("ch")
    assert len(records) == 4 and all(store.digest_matches(r) and r["peak_rss_mb"] > 0 for r in records)
    # joblib reuses its worker processes: a grid run under another results folder must write there, not to the first
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "again"))
    again = grid.run_grid("ch", hgcn.EXPERIMENT.name, configs, device="cpu", workers=2)
    assert again[metrics].equals(frames[2][metrics]) and len(store.records("ch")) == 4


@pytest.mark.slow
def test_a_grid_fans_out_over_a_dask_cluster_with_the_records_of_one_process(tmp_path, monkeypatch):
    """``GRAPHREPRO_SCHEDULER`` (``--scheduler``) sends a grid's batches to a Dask cluster, here two local
    single-thread worker processes: every batch runs there and the records equal those of one process."""
    distributed = pytest.importorskip("distributed")
    from graphrepro.data import DataUnavailable
    from graphrepro.experiments import hgcn

    base = hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged", normalize_feats=False, max_epochs=8)
    configs = [{**base, "dropout": d, "seed": 0} for d in (0.0, 0.2, 0.4, 0.6)]
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "one"))
    try:
        alone = grid.run_grid("ch", hgcn.EXPERIMENT.name, configs, device="cpu", workers=1)
    except DataUnavailable as err:
        pytest.skip(str(err))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "cluster"))
        monkeypatch.setenv(grid.SCHEDULER, cluster.scheduler_address)
        with distributed.get_task_stream(client) as tasks:
            spread = grid.run_grid("ch", hgcn.EXPERIMENT.name, configs, device="cpu", workers=2)
    assert len(tasks.data) >= len(configs)  # each batch (one setting each) ran as a task on the cluster
    assert len({t["worker"] for t in tasks.data}) == 2
    metrics = ["val_roc", "val_ap", "test_roc", "test_ap", "best_epoch"]
    assert spread[metrics].equals(alone[metrics])
    assert all(store.digest_matches(r) for r in store.records("ch")) and len(store.records("ch")) == len(configs)


def test_a_run_recorded_by_another_process_during_a_grid_is_not_trained_again(tmp_path, monkeypatch):
    """Two processes sharing a store: a config the other one recorded after this grid began is skipped."""
    from graphrepro.data import DataUnavailable
    from graphrepro.experiments import hgcn

    base = hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged", normalize_feats=False, max_epochs=5)
    first, second = {**base, "dropout": 0.0}, {**base, "dropout": 0.5}
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "other"))
    try:
        grid.run_grid("ch", hgcn.EXPERIMENT.name, [second], device="cpu", workers=1)
    except DataUnavailable as err:
        pytest.skip(str(err))
    theirs = store.read_record(store.record_path("ch", hgcn.EXPERIMENT.key(second)))
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "shared"))
    trained, real = [], grid.run_batch

    def meanwhile(experiment, configs, *args, **kwargs):  # the other process records `second` while `first` trains
        trained.append([c["dropout"] for c in configs])
        store.write_record("ch", theirs)
        return real(experiment, configs, *args, **kwargs)

    monkeypatch.setattr(grid, "run_batch", meanwhile)
    frame = grid.run_grid("ch", hgcn.EXPERIMENT.name, [first, second], device="cpu", workers=1, max_members=1)
    assert trained == [[0.0]] and len(frame) == 2
    assert store.read_record(store.record_path("ch", hgcn.EXPERIMENT.key(second))) == theirs


def test_freed_blocks_of_varying_size_go_back_to_the_system_when_asked(tmp_path):
    """Blocks of 2-29 MB, each freed while a small tensor stays: glibc's heap keeps tens to hundreds of MB of
    them, and ``release_freed_memory`` returns them (glibc set as a long process ends up, so the test does not
    depend on the machine's history)."""
    script = tmp_path / "blocks.py"
    script.write_text(
        "import torch\n"
        "from graphrepro import train\n"
        "rss = lambda: int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20\n"
        "keep, base = [], rss()\n"
        "for i in range(200):\n"
        "    block = torch.ones((2 + (i * 7919) % 28) * 2**18)\n"
        "    keep.append(torch.ones(3000))\n"
        "    del block\n"
        "held = rss() - base\n"
        "assert train.release_freed_memory()\n"
        "print(held, rss() - base)\n")
    heap_only = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(2**26), "MALLOC_TRIM_THRESHOLD_": str(2**30)}  # glibc as
    # a long training process ends up: blocks under 32 MB served from its heap, which it does not trim by itself
    held, after = map(float, subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                                            env=heap_only).stdout.split())
    assert held > 20 and after < 15, (held, after)


def test_a_checkpoint_carries_its_counts_and_a_torn_one_none(tmp_path):
    path = tmp_path / "run" / "state.pt"
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"state"), seconds=12.5, epochs=3)
    assert checkpoints.seconds(path) == 12.5 and checkpoints.count(path, "epochs", repair=False) == 3
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"later"), epochs=4)  # none given: the old count goes with the old state
    assert checkpoints.seconds(path) == 0.0 and checkpoints.count(path, "epochs") == 4
    with pytest.raises(ValueError, match="not loss"):
        checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"other"), loss=0.5)
    assert path.read_bytes() == b"later"
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"latest"), seconds=20.0, epochs=5)
    path.write_bytes(b"torn")
    assert checkpoints.count(path, "epochs", repair=False) == 0.0 and path.with_suffix(".epochs").exists()  # only looks
    with pytest.warns(checkpoints.TornCheckpoint, match="starts over"):
        assert checkpoints.seconds(path) == 0.0
    assert not path.exists() and not path.with_suffix(".seconds").exists() and not path.with_suffix(".epochs").exists()


def test_a_carried_checkpoint_resumes_where_the_cache_has_none_or_fewer_epochs(recwarn):
    folder = checkpoints.folder("exp", "run")
    path, copy = folder / "state.pt", checkpoints.carried(folder / "state.pt")
    assert copy == paths.results_dir() / "underway" / "checkpoints" / "exp" / "run" / "state.pt"
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"epoch 3"), seconds=9.0, epochs=3)
    assert checkpoints.carry(folder) == [copy] and checkpoints.carry(folder) == []  # only when further on
    assert sorted(p.name for p in copy.parent.iterdir()) == ["state.epochs", "state.pt", "state.seconds", "state.sha256"]
    assert checkpoints.carried_keys("exp") == ["run"] and checkpoints.carried_keys("other") == []
    shutil.rmtree(folder)  # another machine: the repository's copy only
    assert checkpoints.read_verified(path, repair=False) == b"epoch 3" and not folder.exists()  # a look copies nothing
    assert checkpoints.count(path, "epochs", repair=False) == 3
    assert checkpoints.seconds(path) == 9.0 and path.read_bytes() == b"epoch 3"  # the run starts: copied into the cache
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"epoch 4"), epochs=4)
    assert checkpoints.read_verified(path) == b"epoch 4"  # the cache is further on than the carried copy
    assert checkpoints.carry(folder) == [copy] and copy.read_bytes() == b"epoch 4" and checkpoints.seconds(copy) == 0
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"epoch 5, no count"))  # as older code wrote them
    assert checkpoints.carry(folder) == [copy] and copy.read_bytes() == b"epoch 5, no count"
    assert checkpoints.carry(folder) == []
    copy.write_bytes(b"epoch 9, torn")
    shutil.rmtree(folder)
    assert checkpoints.read_verified(path) is None and copy.exists() and not recwarn.list  # never loaded, nor removed
    checkpoints.discard(folder)
    assert not copy.parent.exists() and checkpoints.carried_keys("exp") == []
    with pytest.raises(ValueError, match="not a checkpoint folder in the cache"):
        checkpoints.carry(paths.results_dir())
    assert checkpoints.carried(paths.results_dir()) is None


def test_a_reader_that_only_looks_leaves_a_checkpoint_caught_between_its_two_moves(tmp_path, recwarn):
    path = tmp_path / "run" / "state.pt"
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"epoch 1"))
    path.write_bytes(b"epoch 2")  # the writer has moved the new state into place, not yet its pin
    assert checkpoints.read_verified(path, repair=False) is None
    assert path.read_bytes() == b"epoch 2" and path.with_suffix(".sha256").exists() and not recwarn.list
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"epoch 2"))
    assert checkpoints.read_verified(path, repair=False) == b"epoch 2"


def test_a_run_reading_its_checkpoint_sweeps_what_a_killed_writer_left(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    ended = paths.temporary_prefix().replace(f"-{os.getpid()}-", f"-{done.stdout.strip()}-")  # a process of this host that has ended
    path = tmp_path / "run" / "state.pt"
    checkpoints.write_pinned(path, lambda tmp: tmp.write_bytes(b"state"))
    (path.parent / f"{ended}state.partial.pt").write_bytes(b"half a later checkpoint")
    assert checkpoints.read_verified(path) == b"state"
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.pt", "state.sha256"]


def test_an_atomic_write_that_fails_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "cache" / "arrays.npz"
    digest = paths.write_atomically(path, lambda tmp: np.savez_compressed(tmp, x=np.arange(3)))
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()  # numpy wrote where told: the suffix was kept
    with np.load(path) as npz:
        assert npz["x"].tolist() == [0, 1, 2]

    def fails(tmp):
        tmp.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        paths.write_atomically(path, fails)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest and [p.name for p in path.parent.iterdir()] == ["arrays.npz"]


def test_a_resumed_runs_record_counts_the_seconds_earlier_processes_trained(isolated_store, monkeypatch):
    def train(data, configs, device):
        return [{"val_acc": 0.5, "test_acc": 0.5, "resumed_s": 100.0 * c["seed"]} for c in configs]

    monkeypatch.setattr(catalog, "experiments", lambda: {"e": Experiment("e", 1, dict, lambda c: 0, lambda c: None, train)})
    fresh, resumed = grid.run_batch(catalog.experiment("e"), [{"seed": 0}, {"seed": 1}], None, device="cpu")
    assert "resumed_s" not in fresh and "resumed_s" not in resumed["metrics"]  # not a metric verify compares
    assert resumed["resumed_s"] == 100.0 and resumed["wall_s"] == pytest.approx(fresh["wall_s"] + 100.0, abs=1e-3)


def test_each_batch_records_its_own_peak_memory_not_the_processs_earlier_peak(isolated_store, monkeypatch):
    def train(data, configs, device):
        held = np.ones(configs[0]["mb"] * 2**20 // 8)  # every page touched
        return [{"val_acc": float(held[0]), "test_acc": 0.5} for _ in configs]

    monkeypatch.setattr(catalog, "experiments", lambda: {"e": Experiment("e", 1, dict, lambda c: 0, lambda c: None, train)})
    large = grid.run_batch(catalog.experiment("e"), [{"seed": 0, "mb": 600}], None, device="cpu")[0]
    small = grid.run_batch(catalog.experiment("e"), [{"seed": 0, "mb": 10}], None, device="cpu")[0]
    assert large["peak_rss_mb"] - small["peak_rss_mb"] > 500, (large["peak_rss_mb"], small["peak_rss_mb"])
