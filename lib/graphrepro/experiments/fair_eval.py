"""Chapter 3's runs: node classification under k-fold model assessment (Errica et al. 2020, as the fair
evaluation of GMNN uses it). A config names the dataset, the fold, the kind of training set (dense,
sparse balanced, sparse stratified), the model and its hyperparameters; runs that share data, model
and hidden size train as one batch (``graphrepro.batched``), whatever their other hyperparameters."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from graphrepro import precision, vocabulary
from graphrepro.data import splits
from graphrepro.data.planetoid import planetoid_data
from graphrepro.experiments import Experiment
from graphrepro.models import batched, gmnn

DATASETS, KINDS, MODELS = vocabulary.FAIR_EVAL_DATASETS, vocabulary.FAIR_EVAL_KINDS, vocabulary.FAIR_EVAL_MODELS
DEFAULTS: dict[str, Any] = {"hidden": 64, "lr": 1e-2, "weight_decay": 5e-4, "dropout": 0.5, "input_dropout": 0.5,
                            "max_epochs": 1000, "patience": 200, "folds": 10, "split_seed": 0, "per_class": 20}
OPTIONAL = ("eps", "gmnn_loops", "gmnn_epochs", "gmnn_tau", "gmnn_p_features")  # FAGCN's eps; GMNN on top of the model


def make_config(dataset: str, fold: int, kind: str, model: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A run config: the protocol's defaults, then ``overrides``; unknown or inconsistent fields refused."""
    if dataset not in DATASETS or kind not in KINDS or model not in MODELS:
        raise ValueError(f"unknown {dataset}/{kind}/{model}; datasets {DATASETS}, kinds {KINDS}, models {MODELS}")
    unknown = set(overrides) - set(DEFAULTS) - set(OPTIONAL) - {"precision"}
    if unknown:
        raise ValueError(f"unknown config fields {sorted(unknown)}")
    config = {**DEFAULTS, **overrides}
    if ("eps" in config) != (model == "FAGCN"):
        raise ValueError("eps is given for (and only for) FAGCN")
    gmnn_fields = [k for k in OPTIONAL[1:4] if k in config]
    if gmnn_fields and (len(gmnn_fields) != 3 or model == "MLP"):
        raise ValueError("GMNN needs gmnn_loops, gmnn_epochs and gmnn_tau, on GCN or FAGCN")
    if "gmnn_p_features" in config and (config["gmnn_p_features"] is not True or not gmnn_fields):
        raise ValueError("gmnn_p_features is given only as true, on a GMNN run (its absence: p reads labels only)")
    if not 0 <= fold < config["folds"] or (kind == "public" and fold != 0):
        raise ValueError(f"fold {fold} outside 0 .. {config['folds'] - 1} (the public split is fold 0)")
    return precision.keyed({"dataset": dataset, "fold": fold, "kind": kind, "model": model, "seed": seed, **config})


def data_key(config: dict[str, Any]) -> tuple:
    """Runs with the same key share one prepared graph and split."""
    return tuple(config[k] for k in ("dataset", "fold", "kind", "folds", "split_seed", "per_class"))


def batch_key(config: dict[str, Any]) -> str:
    """Runs of one model, hidden size and precision on the same data train as one batch (other settings may differ)."""
    return json.dumps([config[k] for k in ("model", "hidden", "max_epochs", "patience")] + [config.get(k) for k in OPTIONAL[1:]]
                      + [precision.of(config)])


@lru_cache(maxsize=2)
def _graph(dataset: str) -> tuple[batched.Graph, torch.Tensor, dict[str, torch.Tensor]]:
    data = planetoid_data(dataset)
    x = (data.x > 0).float()  # binarised, then L1-normalised per node
    x = x / x.sum(1, keepdim=True).clamp(min=1)
    public = {name: torch.nonzero(mask).flatten() for name, mask in
              (("train", data.train_mask), ("valid", data.val_mask), ("test", data.test_mask))}
    return batched.make_graph(x, data.edge_index), data.y, public


def fold_split(y: np.ndarray, config: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The config's fold: test, validation, and the training set of its kind (drawn from the inner training set)."""
    fold = splits.stratified_folds(y, config["folds"], config["split_seed"])[config["fold"]]
    train = fold.train
    if config["kind"] == "sparse_balanced":
        train = splits.sparse_balanced(fold.train, y, config["per_class"], config["split_seed"] + config["fold"])
    elif config["kind"] == "sparse_stratified":
        train = splits.sparse_stratified(fold.train, y, config["per_class"], config["split_seed"] + config["fold"])
    return {name: torch.from_numpy(np.asarray(nodes)).long() for name, nodes in (("train", train), ("valid", fold.valid), ("test", fold.test))}


def prepare(config: dict[str, Any]) -> dict[str, Any]:
    """The graph, labels and split a config trains on."""
    graph, y, public = _graph(config["dataset"])
    return {"graph": graph, "y": y, "split": public if config["kind"] == "public" else fold_split(y.numpy(), config)}


def train(data: dict[str, Any], configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train a batch of configs as members of one model at their precision (logits, losses and metrics in fp32);
    each member's metrics at its best validation-loss epoch, or with GMNN: the best of p and q by validation
    accuracy, with p, q and the pre-trained base."""
    with precision.autocast(precision.of(configs[0]), torch.device("cpu")):  # the batched models train on the CPU
        return _train(data, configs)


def _train(data: dict[str, Any], configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first = configs[0]
    model = batched.MODELS[first["model"]]
    hyper = batched.hyper_tensors(configs)
    seeds = [c["seed"] for c in configs]
    graph, y, split = data["graph"], data["y"], data["split"]
    stop_on = "loss_acc" if first["model"] == "FAGCN" else "loss"
    if "gmnn_loops" in first:
        result = gmnn.gmnn(model, graph, y, split, hyper, seeds, first["hidden"], first["max_epochs"], first["patience"],
                              stop_on, first["gmnn_loops"], first["gmnn_epochs"], first["gmnn_tau"],
                              p_features=first.get("gmnn_p_features", False))
        return [{"val_acc": best["val_acc"], "test_acc": best["test_acc"], "test_p_acc": p["test_acc"], "val_p_acc": p["val_acc"],
                 "test_q_acc": q["test_acc"], "val_q_acc": q["val_acc"], "test_base_acc": base["test_acc"],
                 "val_base_acc": base["val_acc"], "epochs_run": result.epochs}
                for best, p, q, base in zip(result.best, result.p, result.q, result.base)]
    fitted = batched.train(model, graph, y, split, hyper, seeds, first["hidden"], first["max_epochs"], first["patience"], stop_on)
    test = batched.evaluate(model, fitted.params, graph, y, split["test"], hyper, seeds).tolist()
    return [{"val_loss": r.val_loss, "val_acc": r.val_acc, "test_acc": t, "best_epoch": r.best_epoch,
             "epochs_run": r.epochs_run, "diverged": not np.isfinite(r.losses[-1])} for r, t in zip(fitted.results, test)]


EXPERIMENT = Experiment("fair-eval-nc", 1, make_config, data_key, prepare, train, stacks=True, threads=1,
                        metrics=("acc", "loss"), selection=lambda c: "acc", batch_key=batch_key)
