"""A fault drill for long runs, on a small chapter-4 configuration: a process killed in the middle of an epoch,
a checkpoint write that fails, and a torn checkpoint."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from fixtures import random_molecules

from graphrepro import checkpoints
from graphrepro.experiments import lrgb

TIMINGS = ("train_s", "eval_s", "train_graphs_per_s", "eval_graphs_per_s")


def small_run(mixed: str = "float32") -> tuple[dict, dict]:
    """Random molecules in Peptides-func's format (4 training batches an epoch) and a tuned GCN on them:
    dropout, RWSE and the cosine schedule all take part."""
    graphs = random_molecules(48)
    for g, pe in zip(graphs, lrgb.random_walk_se(graphs, progress=False)):
        g.rwse = pe
    data = {"train": graphs[:32], "val": graphs[32:40], "test": graphs[40:]}
    return data, lrgb.make_config("GCN", "tuned", 1, epochs=3, batch_size=8, warmup_epochs=1.0, precision=mixed)


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread, as the grid trains this experiment: a reduction split over other thread counts
    rounds otherwise, and the drill compares bit for bit."""
    before = torch.get_num_threads()
    torch.set_num_threads(lrgb.EXPERIMENT.threads)
    yield
    torch.set_num_threads(before)


def same_result(resumed: dict, straight: dict) -> None:
    """Equal bit for bit: every metric and every per-epoch value but the timings."""
    for name in ("val_ap", "test_ap", "val_loss", "best_epoch", "epochs_run", "parameters"):
        assert resumed[name] == straight[name], name
    ours, theirs = resumed["artefacts"]["curve"], straight["artefacts"]["curve"]
    for name in set(theirs) - set(TIMINGS):
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


KILLER = """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    import graphrepro  # noqa: F401  (before torch)
    import torch
    from graphrepro.experiments import lrgb
    from test_fault_drill import small_run

    torch.set_num_threads(lrgb.EXPERIMENT.threads)
    data, config = small_run({mixed!r})
    built, calls = lrgb.build, []

    def build(config):
        model = built(config)

        def kill_mid_epoch(module, inputs):
            calls.append(module.training)
            if sum(calls) == 6:  # the second of epoch 1's four training batches: epoch 0 is checkpointed
                os.kill(os.getpid(), signal.SIGKILL)

        model.register_forward_pre_hook(kill_mid_epoch)
        return model

    lrgb.build = build
    lrgb.train_run(data, config, torch.device("cpu"), "killed")
    print("not killed")
"""


@pytest.mark.parametrize("mixed", ["float32", "bfloat16"])
@pytest.mark.slow
def test_a_run_killed_mid_epoch_resumes_to_the_uninterrupted_result(mixed, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    script = textwrap.dedent(KILLER).format(tests=str(Path(__file__).parent), mixed=mixed)
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ.copy())
    assert killed.returncode == -9 and "not killed" not in killed.stdout, killed.stderr[-2000:]
    assert lrgb.epochs_checkpointed("killed") == 1  # the epoch it finished, not the one it was in
    data, config = small_run(mixed)
    straight = lrgb.train_run(data, config, torch.device("cpu"), "straight")
    resumed = lrgb.train_run(data, config, torch.device("cpu"), "killed")
    same_result(resumed, straight)
    assert resumed["resumed_s"] > 0 and not lrgb.checkpoint_dir("killed").exists()


@pytest.mark.slow
def test_a_checkpoint_write_that_fails_says_so_and_keeps_the_previous_one(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    data, config = small_run()
    assert lrgb.train_run(data, config, torch.device("cpu"), "full", stop_after=2) is None
    folder = lrgb.checkpoint_dir("full")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    saved = torch.save

    def disk_full(state, path):
        saved(state, path)  # the bytes reach the disk, then the disk fills
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(torch, "save", disk_full)
    with pytest.raises(checkpoints.CheckpointNotWritten, match="No space left on device; the previous checkpoint is kept"):
        lrgb.train_run(data, config, torch.device("cpu"), "full")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing staged is left beside it
    assert lrgb.epochs_checkpointed("full") == 2
    monkeypatch.setattr(torch, "save", saved)
    same_result(lrgb.train_run(data, config, torch.device("cpu"), "full"), lrgb.train_run(data, config, torch.device("cpu"), "straight"))


@pytest.mark.slow
def test_a_torn_checkpoint_starts_the_run_over_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    data, config = small_run()
    assert lrgb.train_run(data, config, torch.device("cpu"), "torn", stop_after=2) is None
    state = lrgb.checkpoint_dir("torn") / "state.pt"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])  # a write cut off half-way
    with pytest.warns(checkpoints.TornCheckpoint, match="starts over from its first epoch"):
        started_over = lrgb.train_run(data, config, torch.device("cpu"), "torn")
    assert started_over["resumed_s"] == 0
    same_result(started_over, lrgb.train_run(data, config, torch.device("cpu"), "straight"))
