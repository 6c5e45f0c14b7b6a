"""HGCN-style full-batch training: link prediction and node classification on one graph."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F
from torch_geometric.data import Data

from graphrepro import precision
from graphrepro.data import hgcn as hgcn_data
from graphrepro.data.synthetic import tree_dataset
from graphrepro.experiments import Experiment, batch_key
from graphrepro.metrics import link_metrics, link_selection_score, node_metrics
from graphrepro.models import LinkPredictor, NodeClassifier, build_encoder
from graphrepro.models.hgcn import EUCLIDEAN, MODELS
from graphrepro.models.members import Members
from graphrepro.train import FitResult, HGCNStopping, StoppingRule, fit, seed_everything

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
# fields that exist only in the configs that set them, so adding them left every other run's key alone
OPTIONAL = {
    "tree_gamma": "γ of Tree(10, 3, γ, 1, N(0, I_1000)), for the synthetic tree1111 datasets",
    "label_feature": "airport NC: keep feature column 4, from which the classes are binned, among the features",
}
TASKS = {"lp": ("disease_lp", "airport", "tree1111"), "nc": ("disease_nc", "airport")}
TREE_DATA_SEED = 0  # one sample of each Tree1111_γ, shared by all training seeds
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
    unknown = set(overrides) - set(DEFAULTS) - set(OPTIONAL) - {"precision"}
    if unknown:
        raise ValueError(f"unknown config fields {sorted(unknown)}; known: {sorted(DEFAULTS)} and {sorted(OPTIONAL)}")
    config = {**DEFAULTS, **overrides}
    if config.get("label_feature") and (dataset, task) != ("airport", "nc"):
        raise ValueError("label_feature applies to airport node classification only")
    if (dataset == "tree1111") != (config.get("tree_gamma") is not None):
        raise ValueError("tree_gamma is set for (and only for) the synthetic tree1111 datasets")
    if task == "lp":
        config["split"] = "hgcn"
    if model in EUCLIDEAN:
        config["c"] = None
    return precision.keyed({"dataset": dataset, "task": task, "model": model, "variant": variant, "seed": seed, **config})


def data_key(config: dict[str, Any]) -> tuple:
    """Runs with the same key share one prepared graph."""
    return tuple(config.get(k) for k in ("dataset", "task", "normalize_feats", "split", "split_seed", *OPTIONAL))


def prepare(config: dict[str, Any]) -> Data:
    """The graph and split a config trains on."""
    if config["dataset"] == "tree1111":
        adj, feats = tree_dataset(10, 3, config["tree_gamma"], 1.0, 1000, TREE_DATA_SEED)
        return hgcn_data.link_split_data(adj, feats, config["normalize_feats"], config["split_seed"])
    if config["task"] == "lp":
        return hgcn_data.link_prediction_data(config["dataset"], config["normalize_feats"], config["split_seed"])
    return hgcn_data.node_classification_data(
        config["dataset"], config["normalize_feats"], config["split"], config["split_seed"],
        label_feature=config.get("label_feature", False),
    )


def _encoder(config: dict[str, Any], members: Members, in_dim: int):
    return build_encoder(
        members, config["model"], in_dim, config["dim"], config["num_layers"], config["task"],
        config["act"], config["dropout"], config["bias"], config["c"],
    )


def _fit_lp(data: Data, config: dict[str, Any], members: Members, stopping: StoppingRule) -> list[FitResult]:
    projection, clamp = VARIANTS[config["variant"]]
    model = LinkPredictor(_encoder(config, members, data.num_features), projection, clamp).to(data.x.device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    pool, n_train = data.train_neg_pool, len(data.train_pos)

    mixed = precision.of(config)

    def step(active: list[bool]) -> list[float]:
        model.train()
        opt.zero_grad()
        with precision.autocast(mixed, data.x.device):
            h = model.embed(data.x, data)
        neg = pool[members.randint(len(pool), n_train)]  # [members, n_train, 2], each member's own draw
        with precision.autocast(mixed, data.x.device):
            pos_p, neg_p = model.score(h, data.train_pos).float(), model.score(h, neg).float()
        finite = torch.isfinite(pos_p).all(1) & torch.isfinite(neg_p).all(1)
        train = finite & torch.tensor(active, device=finite.device)
        pos_p, neg_p = (torch.where(train[:, None], p, 0.5) for p in (pos_p, neg_p))
        loss = F.binary_cross_entropy(pos_p, torch.ones_like(pos_p), reduction="none").mean(1)
        loss = loss + F.binary_cross_entropy(neg_p, torch.zeros_like(neg_p), reduction="none").mean(1)
        loss[train].sum().backward()  # members' losses are separate terms: their gradients stay separate
        opt.step()
        return torch.where(finite, loss, torch.nan).tolist()

    def evaluate():
        model.eval()
        with torch.no_grad(), precision.autocast(mixed, data.x.device):
            h = model.embed(data.x, data)
            scores = {split: tuple(model.score(h, data[f"{split}_{side}"]).float().cpu().numpy() for side in ("pos", "neg"))
                      for split in ("val", "test")}
        vals = [link_metrics(scores["val"][0][s], scores["val"][1][s]) for s in range(len(members))]
        return vals, lambda s: link_metrics(scores["test"][0][s], scores["test"][1][s])

    return fit(len(members), step, evaluate, link_selection_score, stopping)


def _fit_nc(data: Data, config: dict[str, Any], members: Members, stopping: StoppingRule) -> list[FitResult]:
    n_classes = int(data.y.max()) + 1
    encoder = _encoder(config, members, data.num_features)
    model = NodeClassifier(members, encoder, config["model"], config["dim"], n_classes, config["dropout"], config["bias"])
    model = model.to(data.x.device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    y = data.y.cpu().numpy()

    mixed = precision.of(config)

    def step(active: list[bool]) -> list[float]:
        model.train()
        opt.zero_grad()
        with precision.autocast(mixed, data.x.device):
            logits = model(data.x, data).float()
        logp = F.log_softmax(logits[:, data.train_idx], dim=-1)  # [members, train, classes]
        target = data.y[data.train_idx].expand(len(members), -1)
        loss = F.nll_loss(logp.transpose(1, 2), target, reduction="none").mean(1)
        finite = torch.isfinite(loss)
        train = finite & torch.tensor(active, device=finite.device)
        loss[train].sum().backward()
        opt.step()
        return loss.tolist()

    def evaluate():
        model.eval()
        with torch.no_grad(), precision.autocast(mixed, data.x.device):
            pred = model(data.x, data).float().argmax(-1).cpu().numpy()

        def on(split: str, s: int) -> dict[str, float]:
            idx = data[f"{split}_idx"].cpu().numpy()
            return node_metrics(pred[s, idx], y[idx], n_classes)

        return [on("val", s) for s in range(len(members))], lambda s: on("test", s)

    return fit(len(members), step, evaluate, lambda m: m["f1"], stopping)


def train(data: Data, configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train configs that differ only in their seed as one stacked model; metrics at each one's best epoch."""
    first = configs[0]
    if len({batch_key(c) for c in configs}) != 1:
        raise ValueError("configs trained together may differ only in their seed")
    seed_everything(first["seed"])
    members = Members([c["seed"] for c in configs], device)
    stopping = HGCNStopping(first["max_epochs"], first["patience"], first["min_epochs"])
    fit_task = _fit_lp if first["task"] == "lp" else _fit_nc
    results = fit_task(data.to(device), first, members, stopping)
    return [
        {
            **{f"val_{k}": v for k, v in r.val.items()},
            **{f"test_{k}": v for k, v in r.test.items()},
            "best_epoch": r.best_epoch,
            "epochs_run": r.epochs_run,
            "diverged": r.diverged,
        }
        for r in results
    ]


def selection(config: dict[str, Any]) -> str:
    """HGCN's model selection: the mean of ROC AUC and AP for links, F1 for nodes."""
    return "roc_ap_mean" if config["task"] == "lp" else "f1"


EXPERIMENT = Experiment("hgcn-fullbatch", 2, make_config, data_key, prepare, train, stacks=True, threads=1,
                        metrics=("roc", "ap", "acc", "f1"), selection=selection)
