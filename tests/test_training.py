"""Training: determinism on the CPU, and early stopping as HGCN does it."""

from __future__ import annotations

import pytest
import torch

from graphrepro.data import DataUnavailable
from graphrepro.experiments import hgcn
from graphrepro.train import Stopping, fit, resolve_device


@pytest.fixture(scope="module")
def disease_lp():
    config = hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged", normalize_feats=False, max_epochs=15)
    try:
        return config, hgcn.prepare(config)
    except DataUnavailable as err:
        pytest.skip(str(err))


@pytest.mark.parametrize("model, variant", [("MLP", "original"), ("HGCN", "none")])
def test_same_seed_gives_identical_metrics(disease_lp, model, variant):
    config, data = disease_lp
    hyperbolic = model == "HGCN"
    config = {**config, "model": model, "variant": variant, "c": 1.0 if hyperbolic else None, "dropout": 0.0 if hyperbolic else 0.2}
    first = hgcn.train(data, config, torch.device("cpu"))
    second = hgcn.train(data, config, torch.device("cpu"))
    assert first == second
    other_seed = hgcn.train(data, {**config, "seed": 1}, torch.device("cpu"))
    assert other_seed != first


def test_early_stopping_waits_for_min_epochs_and_uses_equality():
    scores = iter([0.5] + [0.1] * 1000)
    evaluations = []

    def evaluate():
        s = next(scores)
        evaluations.append(s)
        return {"s": s}, lambda: {"t": len(evaluations)}

    result = fit(lambda: 0.0, evaluate, lambda m: m["s"], Stopping(max_epochs=1000, patience=3, min_epochs=10))
    # counter hits 3 at epoch 3 (<= min_epochs) and keeps growing: HGCN never early-stops then
    assert result.epochs_run == 1000 and result.best_epoch == 0 and result.test == {"t": 1}

    scores = iter([0.1 * i for i in range(20)] + [0.0] * 1000)
    evaluations.clear()
    result = fit(lambda: 0.0, evaluate, lambda m: m["s"], Stopping(max_epochs=1000, patience=5, min_epochs=10))
    assert result.best_epoch == 19 and result.epochs_run == 25


def test_divergence_ends_training_and_keeps_the_best_epoch():
    steps = iter([0.0, 0.0, 0.0])

    def step():
        if next(steps, None) is None:
            raise FloatingPointError

    scores = iter([0.3, 0.7, 0.5])
    result = fit(step, lambda: ({"s": next(scores)}, lambda: {"t": 1}), lambda m: m["s"], Stopping(100, 10, 0))
    assert result.diverged and result.best_epoch == 1 and result.epochs_run == 4 and result.val == {"s": 0.7}


def test_config_is_checked():
    with pytest.raises(ValueError, match="unknown config fields"):
        hgcn.make_config("disease_lp", "lp", "MLP", 0, "original", hidden=32)
    with pytest.raises(ValueError, match="variant"):
        hgcn.make_config("airport", "nc", "MLP", 0, "debugged")
    with pytest.raises(ValueError, match="unknown model"):
        hgcn.make_config("airport", "nc", "GIN", 0)


def test_device_choice():
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA"):
            resolve_device("cuda")
