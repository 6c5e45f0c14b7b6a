"""Within-graph link prediction scored against every node (LRGB's PCQM-Contact protocol on single graphs):
MLP, GCN, GAT and GIN encoders with a dot-product decoder on Cora, Citeseer and airport. Each held-out
edge, in both directions, is one query; its candidates are every node of the graph, ranked raw (only
the true target is known), filtered (the query node's other known neighbours removed) and extended-
filtered (the node itself removed too). Per-query ranks under each tie rule, and the rank an unstable
``argsort`` gives (OGB's and LRGB's code), are kept as an artefact."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn
from torch.nn import functional as F
from torch_geometric.nn import GATConv, GCNConv, GINConv

from graphrepro import precision, vocabulary
from graphrepro.data.hgcn import link_split_data, raw_graph
from graphrepro.data.planetoid import planetoid_data
from graphrepro.experiments import Experiment
from graphrepro.metrics import ranking
from graphrepro.train import PatienceStopping, fit, seed_everything

DATASETS, MODELS = vocabulary.LINKPRED_DATASETS, vocabulary.LINKPRED_MODELS
VARIANTS = ("raw", "filtered", "extended")
RULES = ("optimistic", "realistic", "pessimistic", "argsort")


def make_config(dataset: str, model: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A run: two layers of 64 then 32 dimensions, Adam, early stopping on validation filtered MRR."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown graph {dataset!r}; choose from {DATASETS}")
    if model not in MODELS:
        raise ValueError(f"unknown encoder {model!r}; choose from {MODELS}")
    config = {"dataset": dataset, "model": model, "seed": seed, "hidden": 64, "dim": 32, "dropout": 0.5, "lr": 0.01,
              "max_epochs": 300, "patience": 50, "split_seed": 1234}
    unknown = set(overrides) - set(config) - {"precision"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)} for a link-prediction run")
    return precision.keyed({**config, **overrides})


def data_key(config: dict[str, Any]) -> tuple:
    """Runs on one graph and split share the data."""
    return (config["dataset"], config["split_seed"])


def prepare(config: dict[str, Any]) -> dict[str, Any]:
    """HGCN's 85/5/10 edge split (message passing on training edges only) and every known edge per node."""
    if config["dataset"] == "airport":
        adj, feats, _ = raw_graph("airport")
    else:
        graph = planetoid_data(config["dataset"])
        n = graph.num_nodes
        ei = graph.edge_index.numpy()
        adj = sp.csr_matrix((np.ones(ei.shape[1]), (ei[0], ei[1])), shape=(n, n))
        adj = ((adj + adj.T) > 0).astype(float)
        adj.setdiag(0)
        adj.eliminate_zeros()
        feats = graph.x.numpy()
    data = link_split_data(sp.csr_matrix(adj), feats, normalize_feats=True, split_seed=config["split_seed"],
                           augment=config["dataset"] == "airport")
    return {"data": data, "known": sp.csr_matrix(adj, dtype=bool)}


class Encoder(nn.Module):
    """Two message-passing layers (or two Linear layers for the MLP) with ReLU and dropout between."""

    def __init__(self, model: str, features: int, hidden: int, dim: int, dropout: float):
        super().__init__()
        self.model, self.dropout = model, dropout
        if model == "MLP":
            self.layers = nn.ModuleList([nn.Linear(features, hidden), nn.Linear(hidden, dim)])
        elif model == "GCN":
            self.layers = nn.ModuleList([GCNConv(features, hidden), GCNConv(hidden, dim)])
        elif model == "GAT":
            self.layers = nn.ModuleList([GATConv(features, hidden // 4, heads=4), GATConv(hidden, dim, heads=1)])
        else:
            self.layers = nn.ModuleList([GINConv(nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden))),
                                         GINConv(nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, dim)))])

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = F.dropout(x, self.dropout, self.training)
            x = layer(x) if self.model == "MLP" else layer(x, edge_index)
            if i == 0:
                x = F.relu(x)
        return x


def query_ranks(z: torch.Tensor, edges: np.ndarray, known: sp.csr_matrix, variants: tuple[str, ...] = VARIANTS,
                rules: tuple[str, ...] = RULES) -> dict[str, np.ndarray]:
    """Ranks of each held-out edge in both directions against every node, per variant and tie rule."""
    queries = np.concatenate([edges, edges[:, ::-1]])
    source, target = queries[:, 0], queries[:, 1]
    with torch.no_grad():
        scores = (z[torch.from_numpy(source.copy())] @ z.T).numpy().astype(np.float64)
    others = known[source].toarray()
    others[np.arange(len(queries)), target] = False
    self_loop = np.zeros_like(others)
    self_loop[np.arange(len(queries)), source] = True
    out: dict[str, np.ndarray] = {"source": source}
    masks = {"raw": None, "filtered": others, "extended": others | self_loop}
    for variant in variants:
        ranks = ranking.ranks_from_scores(scores, target, masks[variant])
        for rule in rules:
            out[f"{variant}_{rule}"] = (argsort_ranks(scores, target, masks[variant]) if rule == "argsort" else ranks[rule])
        out[f"{variant}_candidates"] = ranks["num_candidates"]
    return out


def argsort_ranks(scores: np.ndarray, target: np.ndarray, exclude: np.ndarray | None) -> np.ndarray:
    """OGB's rank: the true score first, then the candidates', sorted descending by ``torch.argsort`` (not
    stable); the rank is where the true score lands, so ties fall wherever the sort puts them."""
    rows = np.arange(len(scores))
    true = scores[rows, target]
    keep = np.ones_like(scores, dtype=bool) if exclude is None else ~exclude
    keep[rows, target] = False
    out = np.empty(len(scores))
    for i in rows:
        row = torch.from_numpy(np.concatenate([[true[i]], scores[i][keep[i]]]))
        out[i] = int((torch.argsort(row, descending=True) == 0).nonzero()) + 1
    return out


def train(data: dict[str, Any], configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train each config (BCE on training edges against as many uniform negatives), stop on validation
    filtered MRR, and rank the test edges at the best epoch."""
    graph, known = data["data"], data["known"]
    x, edge_index = graph.x.to(device), graph.edge_index.to(device)
    train_pos = torch.cat([graph.train_pos, graph.train_pos.flip(1)]).to(device)
    out = []
    for config in configs:
        seed_everything(config["seed"])
        model = Encoder(config["model"], x.shape[1], config["hidden"], config["dim"], config["dropout"]).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=config["lr"])

        def step(active: list[bool]) -> list[float]:
            model.train()
            opt.zero_grad()
            with precision.autocast(precision.of(config), device):
                z = model(x, edge_index).float()
            neg = torch.randint(0, graph.num_nodes, train_pos.shape, device=device)
            pos_score = (z[train_pos[:, 0]] * z[train_pos[:, 1]]).sum(1)
            neg_score = (z[neg[:, 0]] * z[neg[:, 1]]).sum(1)
            loss = F.binary_cross_entropy_with_logits(torch.cat([pos_score, neg_score]),
                                                      torch.cat([torch.ones_like(pos_score), torch.zeros_like(neg_score)]))
            loss.backward()
            opt.step()
            return [float(loss.detach())]

        def evaluate():  # in fp32 whatever the training precision: bf16 scores would add ties to the ranks
            model.eval()
            with torch.no_grad():
                z = model(x, edge_index).cpu()
            val = query_ranks(z, graph.val_pos.numpy(), known, ("filtered",), ("realistic",))
            metrics = {"filtered_mrr": ranking.mrr(val["filtered_realistic"])}
            return [metrics], lambda s: {"z": z}

        (result,) = fit(1, step, evaluate, lambda m: m["filtered_mrr"],
                        PatienceStopping(config["max_epochs"], config["patience"]))
        ranks = query_ranks(result.test["z"], graph.test_pos.numpy(), known)
        out.append({
            "val_filtered_mrr": result.val["filtered_mrr"],
            **{f"test_{v}_mrr": ranking.mrr(ranks[f"{v}_realistic"]) for v in VARIANTS},
            "best_epoch": result.best_epoch, "epochs_run": result.epochs_run,
            "artefacts": {"ranks": {k: np.asarray(v) for k, v in ranks.items()}},
        })
    return out


EXPERIMENT = Experiment("graph-rank", 1, make_config, data_key, prepare, train, stacks=False, threads=1,
                        metrics=("mrr",), selection=lambda c: "mrr")
