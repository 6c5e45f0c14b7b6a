"""HGCN-style full-batch training: link prediction and node classification on one graph."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F
from torch_geometric.data import Data

from graphrepro.data import hgcn as hgcn_data
from graphrepro.experiments import Experiment
from graphrepro.metrics import link_metrics, link_selection_score, node_metrics
from graphrepro.models import LinkPredictor, NodeClassifier, build_encoder
from graphrepro.models.hgcn import EUCLIDEAN, MODELS
from graphrepro.train import FitResult, Stopping, fit, seed_everything

DEFAULTS: dict[str, Any] = {
    "dim": 16,
    "num_layers": 2,
    "act": "relu",
    "dropout": 0.0,
    "weight_decay": 0.0,
    "lr": 0.01,
    "bias": True,
    "c": 1.0,
    "normalize_feats": True,
    "split": "faithful",
    "split_seed": 1234,
    "max_epochs": 5000,
    "patience": 100,
    "min_epochs": 100,
}
TASKS = {"lp": ("disease_lp", "airport"), "nc": ("disease_nc", "airport")}
VARIANTS = {"original": (True, None), "debugged": (False, 20.0), "none": (False, None)}


def make_config(dataset: str, task: str, model: str, seed: int, variant: str = "none", **overrides: Any) -> dict[str, Any]:
    """A complete run config: HGCN's defaults, then ``overrides``; checked for unknown or inconsistent fields."""
    if task not in TASKS or dataset not in TASKS[task]:
        raise ValueError(f"unknown task {dataset}/{task}; known: {TASKS}")
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose from {MODELS}")
    euclidean_lp = task == "lp" and model in EUCLIDEAN
    if (variant in ("original", "debugged")) != euclidean_lp:
        raise ValueError("variant is 'original' or 'debugged' for Euclidean link prediction and 'none' otherwise")
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown config fields {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    config = {**DEFAULTS, **overrides}
    if task == "lp":
        config["split"] = "hgcn"
    if model in EUCLIDEAN:
        config["c"] = None
    return {"dataset": dataset, "task": task, "model": model, "variant": variant, "seed": seed, **config}


def data_key(config: dict[str, Any]) -> tuple:
    """Runs with the same key share one prepared graph."""
    return tuple(config[k] for k in ("dataset", "task", "normalize_feats", "split", "split_seed"))


def prepare(config: dict[str, Any]) -> Data:
    """The graph and split a config trains on."""
    if config["task"] == "lp":
        return hgcn_data.link_prediction_data(config["dataset"], config["normalize_feats"], config["split_seed"])
    return hgcn_data.node_classification_data(
        config["dataset"], config["normalize_feats"], config["split"], config["split_seed"]
    )


def _encoder(config: dict[str, Any], in_dim: int):
    return build_encoder(
        config["model"], in_dim, config["dim"], config["num_layers"], config["task"],
        config["act"], config["dropout"], config["bias"], config["c"],
    )


def _fit_lp(data: Data, config: dict[str, Any], stopping: Stopping) -> FitResult:
    projection, clamp = VARIANTS[config["variant"]]
    model = LinkPredictor(_encoder(config, data.num_features), projection, clamp).to(data.x.device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    pool, n_train = data.train_neg_pool, len(data.train_pos)
    ones, zeros = torch.ones(n_train, device=data.x.device), torch.zeros(n_train, device=data.x.device)

    def step() -> float:
        model.train()
        opt.zero_grad()
        h = model.embed(data.x, data.adj)
        neg = pool[torch.randint(len(pool), (n_train,), device=pool.device)]
        pos_p, neg_p = model.score(h, data.train_pos), model.score(h, neg)
        if not (torch.isfinite(pos_p).all() and torch.isfinite(neg_p).all()):
            raise FloatingPointError("non-finite edge probabilities")
        loss = F.binary_cross_entropy(pos_p, ones) + F.binary_cross_entropy(neg_p, zeros)
        loss.backward()
        opt.step()
        return loss.item()

    def evaluate():
        model.eval()
        with torch.no_grad():
            h = model.embed(data.x, data.adj)

        def on(split: str) -> dict[str, float]:
            with torch.no_grad():
                pos, neg = model.score(h, data[f"{split}_pos"]), model.score(h, data[f"{split}_neg"])
            return link_metrics(pos.cpu().numpy(), neg.cpu().numpy())

        return on("val"), lambda: on("test")

    return fit(step, evaluate, link_selection_score, stopping)


def _fit_nc(data: Data, config: dict[str, Any], stopping: Stopping) -> FitResult:
    n_classes = int(data.y.max()) + 1
    encoder = _encoder(config, data.num_features)
    model = NodeClassifier(encoder, config["model"], config["dim"], n_classes, config["dropout"], config["bias"])
    model = model.to(data.x.device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])

    def step() -> float:
        model.train()
        opt.zero_grad()
        logp = F.log_softmax(model(data.x, data.adj)[data.train_idx], dim=1)
        loss = F.nll_loss(logp, data.y[data.train_idx])
        if not torch.isfinite(loss):
            raise FloatingPointError("non-finite loss")
        loss.backward()
        opt.step()
        return loss.item()

    def evaluate():
        model.eval()
        with torch.no_grad():
            pred = model(data.x, data.adj).argmax(1).cpu().numpy()
        y = data.y.cpu().numpy()

        def on(split: str) -> dict[str, float]:
            idx = data[f"{split}_idx"].cpu().numpy()
            return node_metrics(pred[idx], y[idx], n_classes)

        return on("val"), lambda: on("test")

    return fit(step, evaluate, lambda m: m["f1"], stopping)


def train(data: Data, config: dict[str, Any], device: torch.device) -> dict[str, float]:
    """Train one config from its seed; metrics at the best validation epoch."""
    seed_everything(config["seed"])
    stopping = Stopping(config["max_epochs"], config["patience"], config["min_epochs"])
    fit_task = _fit_lp if config["task"] == "lp" else _fit_nc
    result = fit_task(data.to(device), config, stopping)
    return {
        **{f"val_{k}": v for k, v in result.val.items()},
        **{f"test_{k}": v for k, v in result.test.items()},
        "best_epoch": result.best_epoch,
        "epochs_run": result.epochs_run,
        "diverged": result.diverged,
    }


EXPERIMENT = Experiment("hgcn-fullbatch", 1, make_config, data_key, prepare, train)
