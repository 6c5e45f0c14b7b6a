"""Training: determinism on the CPU, and early stopping as HGCN does it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphrepro.data import DataUnavailable
from graphrepro.experiments import hgcn
from graphrepro.grid import intra_op_threads
from graphrepro.train import HGCNStopping, PatienceStopping, fit, resolve_device


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
    with intra_op_threads(hgcn.EXPERIMENT.threads):  # the experiment's own thread policy, as run_batch trains
        first = hgcn.train(data, [config], torch.device("cpu"))
        second = hgcn.train(data, [config], torch.device("cpu"))
        other_seed = hgcn.train(data, [{**config, "seed": 1}], torch.device("cpu"))
    assert first == second
    assert other_seed != first


@pytest.mark.parametrize("model, task, dropout", [("MLP", "lp", 0.0), ("HGCN", "lp", 0.0), ("GCN", "nc", 0.0), ("MLP", "lp", 0.5)])
@pytest.mark.slow
def test_batched_members_match_one_at_a_time(model, task, dropout):
    """Seeds trained as one stacked model follow the same loss curves as when trained alone."""
    dataset = "disease_lp" if task == "lp" else "airport"
    variant = "debugged" if (task == "lp" and model != "HGCN") else "none"
    raw = {"normalize_feats": False} if dataset == "disease_lp" else {}  # HGCN's README setting for Disease
    config = hgcn.make_config(dataset, task, model, 0, variant, dropout=dropout, max_epochs=20, patience=1000, **raw)
    try:
        data = hgcn.prepare(config)
    except DataUnavailable as err:
        pytest.skip(str(err))
    members = hgcn.Members([0, 1, 2])
    fit_task = hgcn._fit_lp if task == "lp" else hgcn._fit_nc
    stopping = HGCNStopping(20, 1000, 100)
    with intra_op_threads(hgcn.EXPERIMENT.threads):  # as run_batch trains
        together = fit_task(data, config, members, stopping)
        alone_runs = [fit_task(data, config, hgcn.Members([s]), stopping)[0] for s in range(3)]
    for result, alone in zip(together, alone_runs):
        np.testing.assert_allclose(result.losses, alone.losses, rtol=1e-5, atol=1e-5)
        assert len(result.losses) == 20


def test_early_stopping_waits_for_min_epochs_and_uses_equality():
    scores = iter([0.5] + [0.1] * 1000)
    evaluations = []

    def evaluate1():
        s = next(scores)
        evaluations.append(s)
        n = len(evaluations)
        return [{"s": s}], lambda member: {"t": n}

    (result,) = fit(1, lambda active: [0.0], evaluate1, lambda m: m["s"], HGCNStopping(max_epochs=1000, patience=3, min_epochs=10))
    # counter hits 3 at epoch 3 (<= min_epochs) and keeps growing: HGCN never early-stops then
    assert result.epochs_run == 1000 and result.best_epoch == 0 and result.test == {"t": 1}

    scores = iter([0.1 * i for i in range(20)] + [0.0] * 1000)
    evaluations.clear()
    (result,) = fit(1, lambda active: [0.0], evaluate1, lambda m: m["s"], HGCNStopping(max_epochs=1000, patience=5, min_epochs=10))
    assert result.best_epoch == 19 and result.epochs_run == 25


def test_plain_patience_rule_stops_after_patience_misses_from_the_start():
    scores = iter([0.5, 0.4, 0.3, 0.2] + [0.0] * 100)
    (result,) = fit(1, lambda active: [0.0], lambda: ([{"s": next(scores)}], lambda m: {}), lambda m: m["s"],
                    PatienceStopping(max_epochs=100, patience=3))
    assert result.best_epoch == 0 and result.epochs_run == 4  # HGCN's rule would run on past min_epochs


def test_divergence_stops_only_that_member_and_keeps_its_best_epoch():
    losses = iter([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [float("nan"), 1.0]] + [[1.0, 1.0]] * 10)
    scores = iter([[0.3, 0.1], [0.7, 0.2], [0.5, 0.3], [0.9, 0.4]] + [[0.0, 0.5 + i] for i in range(10)])

    def evaluate():
        vals = [{"s": v} for v in next(scores)]
        return vals, lambda member: {"t": vals[member]["s"]}

    first, second = fit(2, lambda active: next(losses), evaluate, lambda m: m["s"], HGCNStopping(8, 10, 0))
    assert first.diverged and first.best_epoch == 1 and first.epochs_run == 4 and first.val == {"s": 0.7}
    assert first.losses[:3] == [1.0, 1.0, 1.0] and np.isnan(first.losses[3])
    assert not second.diverged and second.epochs_run == 8 and second.best_epoch == 7


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


@pytest.mark.slow
def test_hyperbolic_maths_run_eagerly():
    """TorchScript's profiling and optimised runs round differently: a run's numbers would depend on what
    ran before it. graphrepro switches TorchScript off, and refuses to build hyperbolic models with it on."""
    import subprocess
    import sys

    from geoopt.manifolds.stereographic import math as pmath

    assert not isinstance(pmath._expmap0, torch.jit.ScriptFunction)
    late = subprocess.run(
        [sys.executable, "-c", "import torch, geoopt, graphrepro.models.poincare"],
        capture_output=True, text=True, env={k: v for k, v in __import__("os").environ.items() if k != "PYTORCH_JIT"},
    )
    assert late.returncode != 0 and "PYTORCH_JIT=0" in late.stderr
