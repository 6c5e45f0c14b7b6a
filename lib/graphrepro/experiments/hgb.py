"""HGB node classification (Lv et al. 2021): GCN, GAT, Simple-HGN and HAN on DBLP, ACM and IMDB, full
batch, early stopping on validation loss, Macro- and Micro-F1 on the real test labels."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from sklearn.metrics import f1_score
from torch.nn import functional as F
from torch_geometric.data import HeteroData
from torch_geometric.transforms import AddMetaPaths

from graphrepro import precision, sparse, vocabulary
from graphrepro.data import hgb as hgb_data
from graphrepro.data.splits import holdout_valid
from graphrepro.experiments import Experiment
from graphrepro.models import hgb as models
from graphrepro.train import PatienceStopping, fit, seed_everything

DATASETS, MODELS = vocabulary.HGB_DATASETS, vocabulary.HGB_MODELS
# Meta-paths of HGB's HAN (methods/HAN/utils.py), as node-type walks; ACM's paper-paper steps name their relation.
METAPATHS: dict[str, dict[str, list[tuple[str, str, str]]]] = {
    "DBLP": {
        "APA": [("author", "rel0", "paper"), ("paper", "rel3", "author")],
        "APTPA": [("author", "rel0", "paper"), ("paper", "rel1", "term"), ("term", "rel4", "paper"), ("paper", "rel3", "author")],
        "APVPA": [("author", "rel0", "paper"), ("paper", "rel2", "venue"), ("venue", "rel5", "paper"), ("paper", "rel3", "author")],
    },
    "ACM": {
        "PPSP": [("paper", "rel0", "paper"), ("paper", "rel4", "subject"), ("subject", "rel5", "paper")],
        "P-PSP": [("paper", "rel1", "paper"), ("paper", "rel4", "subject"), ("subject", "rel5", "paper")],
        "PAP": [("paper", "rel2", "author"), ("author", "rel3", "paper")],
        "PSP": [("paper", "rel4", "subject"), ("subject", "rel5", "paper")],
        "PTP": [("paper", "rel6", "term"), ("term", "rel7", "paper")],
    },
    "IMDB": {
        "MDM": [("movie", "rel0", "director"), ("director", "rel1", "movie")],
        "MAM": [("movie", "rel2", "actor"), ("actor", "rel3", "movie")],
        "MKM": [("movie", "rel4", "keyword"), ("keyword", "rel5", "movie")],
    },
}
# HGB's README settings per dataset and model (methods/{GNN,baseline,HAN}), our starting point
SETTINGS: dict[tuple[str, str], dict[str, Any]] = {
    ("DBLP", "GCN"): {"feats_type": 3, "lr": 1e-3, "weight_decay": 1e-6, "layers": 2},
    ("ACM", "GCN"): {"feats_type": 0, "lr": 1e-3, "weight_decay": 1e-6, "layers": 2},
    ("IMDB", "GCN"): {"feats_type": 0, "lr": 1e-3, "weight_decay": 1e-4, "layers": 3},
    ("DBLP", "GAT"): {"feats_type": 3, "lr": 5e-4, "weight_decay": 1e-4, "layers": 2, "slope": 0.05},
    ("ACM", "GAT"): {"feats_type": 2, "lr": 5e-4, "weight_decay": 1e-4, "layers": 2, "slope": 0.05},
    ("IMDB", "GAT"): {"feats_type": 0, "lr": 1e-3, "weight_decay": 1e-4, "layers": 4, "slope": 0.1},
    ("DBLP", "SimpleHGN"): {"feats_type": 3, "lr": 5e-4, "weight_decay": 1e-4, "layers": 2, "slope": 0.05},
    ("ACM", "SimpleHGN"): {"feats_type": 2, "lr": 5e-4, "weight_decay": 1e-4, "layers": 2, "slope": 0.05},
    ("IMDB", "SimpleHGN"): {"feats_type": 0, "lr": 1e-3, "weight_decay": 2e-4, "layers": 5, "slope": 0.1},
    **{(d, "HAN"): {"feats_type": 1, "lr": 5e-3, "weight_decay": 1e-3, "hidden": 8, "dropout": 0.6, "max_epochs": 200,
                    "patience": 100} for d in DATASETS},
    **{(d, "GAT-metapath"): {"feats_type": 1, "lr": 5e-3, "weight_decay": 1e-3, "hidden": 8, "dropout": 0.6,
                             "max_epochs": 200, "patience": 100, "layers": 1, "slope": 0.2} for d in DATASETS},
}
DEFAULTS: dict[str, Any] = {"hidden": 64, "heads": 8, "dropout": 0.5, "slope": 0.05, "max_epochs": 300, "patience": 30,
                            "val_fraction": 0.2, "val_seed": 0}
OPTIONAL = ("metapath", "type_embedding", "residual", "l2_norm", "metapath_neighbours", "metapath_edge_limit")  # only where set


def make_config(dataset: str, model: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A run config: HGB's defaults, the README settings for the dataset and model, then ``overrides``."""
    if dataset not in DATASETS or model not in MODELS:
        raise ValueError(f"unknown {dataset}/{model}; datasets {DATASETS}, models {MODELS}")
    config = {**DEFAULTS, **SETTINGS[(dataset, model)], **overrides}
    if (model == "GAT-metapath") != ("metapath" in config):
        raise ValueError("a meta-path is given for (and only for) GAT-metapath")
    if "metapath" in config and config["metapath"] not in METAPATHS[dataset]:
        raise ValueError(f"unknown meta-path {config['metapath']!r}; {dataset} has {list(METAPATHS[dataset])}")
    unknown = set(config) - set(DEFAULTS) - set(OPTIONAL) - {"feats_type", "lr", "weight_decay", "layers", "precision"}
    if unknown:
        raise ValueError(f"unknown config fields {sorted(unknown)}")
    return precision.keyed({"dataset": dataset, "model": model, "seed": seed, **config})


def data_key(config: dict[str, Any]) -> tuple:
    """Runs with the same key share one prepared graph."""
    graph = "metapath:" + config["metapath"] if "metapath" in config else ("han" if config["model"] == "HAN" else "homogeneous")
    return (config["dataset"], config["feats_type"], graph, config["val_fraction"], config["val_seed"],
            config.get("metapath_neighbours"), config.get("metapath_edge_limit"))


@lru_cache(maxsize=3)
def _hetero(dataset: str) -> HeteroData:
    return hgb_data.load_hgb(dataset)


def typed_features(data: HeteroData, spec: hgb_data.HGBSpec, feats_type: int) -> tuple[list, list[int], list[bool]]:
    """Inputs per node type for HGB's ``feats-type``: 0 own features (identity where none), 1 target's
    features and zero 10-d elsewhere, 2 target's features and one-hot elsewhere, 3 one-hot everywhere."""
    feats, dims, hot = [], [], []
    for t, name in enumerate(spec.node_types):
        store, n = data[name], data[name].num_nodes
        own = "x" in store and (feats_type == 0 or (feats_type in (1, 2) and t == 0))
        if own:
            feats.append(store.x.float()); dims.append(store.x.shape[1]); hot.append(False)
        elif feats_type == 1:
            feats.append(torch.zeros(n, 10)); dims.append(10); hot.append(False)
        else:
            feats.append(None); dims.append(n); hot.append(True)
    return feats, dims, hot


def homogeneous(data: HeteroData, spec: hgb_data.HGBSpec) -> dict[str, torch.Tensor]:
    """All relations as one graph on global node ids: unique edges, self-loops added; each edge's type is
    its relation id (the highest where several relations join the same pair, as HGB's dict keeps the
    last), self-loops type R. Also the symmetric GCN normalisation of A + I as a sparse matrix."""
    offsets = np.cumsum([0] + [data[t].num_nodes for t in spec.node_types])
    start = {t: int(offsets[i]) for i, t in enumerate(spec.node_types)}
    n = int(offsets[-1])
    rows, cols, types = [], [], []
    for src, rel, dst in data.edge_types:
        ei = data[(src, rel, dst)].edge_index
        rows.append(ei[0] + start[src]); cols.append(ei[1] + start[dst]); types.append(torch.full((ei.shape[1],), int(rel[3:])))
    rows, cols, types = torch.cat(rows), torch.cat(cols), torch.cat(types)
    keep = rows != cols
    code = rows[keep] * n + cols[keep]
    order = torch.argsort(types[keep], stable=True)  # later (higher) relations win on duplicates
    code, kept_types = code[order], types[keep][order]
    unique, inverse = torch.unique(code, return_inverse=True)
    edge_type = torch.full((len(unique),), -1, dtype=torch.long).scatter_reduce(0, inverse, kept_types, "amax")
    loops = torch.arange(n)
    relations = len(data.edge_types)
    edge_index = torch.cat([torch.stack([unique // n, unique % n]), torch.stack([loops, loops])], dim=1)
    edge_type = torch.cat([edge_type, torch.full((n,), relations)])
    # GCN: symmetric graph (A + A^T, unique) with self-loops, D^-1/2 (A + I) D^-1/2
    sym = torch.unique(torch.cat([edge_index, edge_index.flip(0)], dim=1), dim=1)
    degree = torch.bincount(sym[1], minlength=n).float()
    weight = degree[sym[0]].rsqrt() * degree[sym[1]].rsqrt()
    adj = torch.sparse_coo_tensor(sym.flip(0), weight, (n, n), check_invariants=False).coalesce()  # row = destination
    return {"edge_index": edge_index, "edge_type": edge_type, "adj": adj, "relations": relations}


def cap_in_degree(edge_index: torch.Tensor, cap: int, seed: int) -> torch.Tensor:
    """At most ``cap`` incoming edges per node, drawn uniformly with a seeded generator (meta-path
    neighbour sampling, a stated reduction where the full meta-path graph is too large)."""
    order = torch.randperm(edge_index.shape[1], generator=torch.Generator().manual_seed(seed))
    shuffled = edge_index[:, order]
    by_dst = torch.argsort(shuffled[1], stable=True)
    dst = shuffled[1, by_dst]
    first = torch.searchsorted(dst, dst, right=False)
    rank = torch.arange(len(dst)) - first
    keep = by_dst[rank < cap]
    return shuffled[:, torch.sort(keep).values]


def metapath_edges(data: HeteroData, dataset: str, names: list[str], cap: int | None = None, limit: int = 0,
                   seed: int = 0) -> dict[tuple[str, str, str], torch.Tensor]:
    """Edges of each meta-path graph on the target type (PyG's ``AddMetaPaths``), with the self-loop of every
    node a meta-path leads back to (as DGL's ``metapath_reachable_graph``); with ``cap``, a graph of more
    than ``limit`` edges keeps at most ``cap`` sampled other neighbours per node, and its self-loops."""
    target = hgb_data.SPECS[dataset].node_types[0]
    walks = [METAPATHS[dataset][name] for name in names]
    with warnings.catch_warnings():  # PyG builds sparse CSR tensors (a beta format) without checking them
        warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta state")
        with_paths = AddMetaPaths(walks, drop_orig_edge_types=True, drop_unconnected_node_types=True)(data.clone())
    edges = {}
    for i, name in enumerate(names):
        ei = with_paths[(target, f"metapath_{i}", target)].edge_index
        if cap and ei.shape[1] > limit:
            loop = ei[0] == ei[1]
            ei = torch.cat([cap_in_degree(ei[:, ~loop], cap, seed), ei[:, loop]], dim=1)
        edges[(target, name, target)] = ei
    return edges


def attention_graph(edge_index: torch.Tensor, num_nodes: int, edge_type: torch.Tensor | None = None) -> dict[str, Any]:
    """Edges (and their types) sorted by destination, with the CSR structure the attention layers sum over."""
    order = sparse.sort_by_destination(edge_index, num_nodes)
    graph = {"edge_index": edge_index[:, order], "csr": sparse.csr_structure(edge_index[:, order], num_nodes)}
    return graph if edge_type is None else {**graph, "edge_type": edge_type[order]}


@lru_cache(maxsize=3)
def metapath_sizes(dataset: str) -> dict[str, int]:
    """Edges of each of the dataset's meta-path graphs, unsampled."""
    return {k[1]: ei.shape[1] for k, ei in metapath_edges(_hetero(dataset), dataset, list(METAPATHS[dataset])).items()}


def _sampling(config: dict[str, Any]) -> tuple[int | None, int]:
    """The config's meta-path neighbour cap and the edge count above which it applies."""
    return config.get("metapath_neighbours"), config.get("metapath_edge_limit", 0)


def prepare(config: dict[str, Any]) -> dict[str, Any]:
    """The graph, inputs, labels and split a config trains on."""
    spec = hgb_data.SPECS[config["dataset"]]
    data = _hetero(config["dataset"])
    target = data[spec.node_types[0]]
    feats, dims, hot = typed_features(data, spec, config["feats_type"])
    train_nodes = torch.nonzero(target.train_mask).flatten().numpy()
    train, valid = holdout_valid(train_nodes, config["val_fraction"], config["val_seed"])
    prepared = {"features": feats, "dims": dims, "one_hot": hot, "y": target.y, "multilabel": spec.multilabel,
                "classes": spec.classes, "train": torch.from_numpy(train), "valid": torch.from_numpy(valid),
                "test": torch.nonzero(target.test_mask).flatten(), "adj": None, "graph": {}}
    if config["model"] == "HAN":
        names = list(METAPATHS[config["dataset"]])
        edges = metapath_edges(data, config["dataset"], names, *_sampling(config))
        prepared["graph"] = {"target_x": target.x.float(),
                             "metapaths": {k[1]: attention_graph(ei, target.num_nodes) for k, ei in edges.items()}}
    elif config["model"] == "GAT-metapath":
        (ei,) = metapath_edges(data, config["dataset"], [config["metapath"]], *_sampling(config)).values()
        n = target.num_nodes
        loops = torch.arange(n)
        prepared["graph"] = attention_graph(torch.cat([ei[:, ei[0] != ei[1]], torch.stack([loops, loops])], dim=1), n)
        prepared.update(features=[target.x.float()], dims=[target.x.shape[1]], one_hot=[False])
    else:
        graph = homogeneous(data, spec)
        prepared["adj"] = graph.pop("adj")
        prepared["graph"] = {**attention_graph(graph["edge_index"], prepared["adj"].shape[0], graph["edge_type"]),
                             "relations": graph["relations"]}
    return prepared


def build(config: dict[str, Any], data: dict[str, Any]) -> torch.nn.Module:
    """The model a config names, sized for the prepared data."""
    model, hidden, classes = config["model"], config["hidden"], data["classes"]
    if model == "HAN":
        names = list(METAPATHS[config["dataset"]])
        return models.HAN(data["dims"][0], hidden, config["heads"], classes, names, config["dropout"])
    inputs = models.TypedInput(data["dims"], data["one_hot"], hidden)
    if model == "GCN":
        return models.HGBGCN(inputs, hidden, classes, config["layers"], config["dropout"])
    if model in ("GAT", "GAT-metapath"):
        return models.HGBGAT(inputs, hidden, classes, config["layers"], config["heads"], config["dropout"], config["slope"])
    return models.SimpleHGN(inputs, hidden, classes, config["layers"], config["heads"], 2 * data["graph"]["relations"] + 1,
                            config["dropout"], config["slope"], type_embedding=config.get("type_embedding", True),
                            residual=config.get("residual", True), l2_norm=config.get("l2_norm", True))


def _to(graph: Any, device: torch.device) -> Any:
    """Tensors, in nested dicts, on ``device``."""
    if isinstance(graph, dict):
        return {k: _to(v, device) for k, v in graph.items()}
    return graph.to(device) if torch.is_tensor(graph) else graph


def _loss(logits: torch.Tensor, y: torch.Tensor, multilabel: bool) -> torch.Tensor:
    return F.binary_cross_entropy_with_logits(logits, y) if multilabel else F.cross_entropy(logits, y)


def _f1(logits: torch.Tensor, y: torch.Tensor, multilabel: bool) -> dict[str, float]:
    pred = (logits > 0).long().numpy() if multilabel else logits.argmax(-1).numpy()
    truth = y.long().numpy()
    return {"micro_f1": float(f1_score(truth, pred, average="micro", zero_division=0)),
            "macro_f1": float(f1_score(truth, pred, average="macro", zero_division=0))}


def train(data: dict[str, Any], configs: list[dict[str, Any]], device: torch.device) -> list[dict[str, Any]]:
    """Train one config: Adam, full batch, early stopping on validation loss; F1 at the best epoch."""
    (config,) = configs  # HGB models train one seed at a time
    seed_everything(config["seed"])
    model = build(config, data).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    feats = [None if f is None else f.to(device) for f in data["features"]]
    adj = None if data["adj"] is None else data["adj"].to(device)
    graph = _to(data["graph"], device)
    y = data["y"].to(device).float() if data["multilabel"] else data["y"].to(device)
    idx = {k: data[k].to(device) for k in ("train", "valid", "test")}

    mixed = precision.of(config)

    def step(active: list[bool]) -> list[float]:
        model.train()
        opt.zero_grad()
        with precision.autocast(mixed, device):
            logits = model(feats, adj, graph).float()
        loss = _loss(logits[idx["train"]], y[idx["train"]], data["multilabel"])
        loss.backward()
        opt.step()
        return [float(loss.detach())]

    def evaluate():
        model.eval()
        with torch.no_grad(), precision.autocast(mixed, device):
            logits = model(feats, adj, graph).float().cpu()
        yc = y.cpu()
        val_loss = float(_loss(logits[idx["valid"].cpu()], yc[idx["valid"].cpu()], data["multilabel"]))
        val = {"loss": val_loss, **_f1(logits[idx["valid"].cpu()], yc[idx["valid"].cpu()], data["multilabel"])}
        return [val], lambda s: _f1(logits[idx["test"].cpu()], yc[idx["test"].cpu()], data["multilabel"])

    (result,) = fit(1, step, evaluate, lambda m: -m["loss"], PatienceStopping(config["max_epochs"], config["patience"]))
    return [{
        **{f"val_{k}": v for k, v in result.val.items()},
        **{f"test_{k}": v for k, v in result.test.items()},
        "best_epoch": result.best_epoch, "epochs_run": result.epochs_run, "diverged": result.diverged,
    }]


EXPERIMENT = Experiment("hgb-nc", 2, make_config, data_key, prepare, train, stacks=False, threads=1,
                        metrics=("micro_f1", "macro_f1", "loss"), selection=lambda c: "loss")
