"""Loaders and splits for the HGCN datasets (disease_lp, disease_nc, airport), as the original code does them."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from graphrepro.data.registry import resolve_dataset

AIRPORT_LABEL_BINS = (7.0 / 7, 8.0 / 7, 9.0 / 7)


def read_disease(edges_csv: Path, labels_npy: Path, feats_npz: Path | None) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Adjacency, features and labels of a disease dataset; nodes indexed by first appearance."""
    index: dict[str, int] = {}
    pairs = []
    for line in Path(edges_csv).read_text().splitlines():
        if not line.strip():
            continue
        a, b = line.strip().split(",")
        pairs.append((index.setdefault(a, len(index)), index.setdefault(b, len(index))))
    n = len(index)
    rows, cols = np.array(pairs).T
    adj = sp.coo_matrix((np.ones(len(pairs)), (rows, cols)), shape=(n, n)).tocsr()
    adj = ((adj + adj.T) > 0).astype(np.float64)
    if feats_npz is None:
        feats = np.eye(n)
    else:
        feats = np.asarray(sp.load_npz(feats_npz).todense(), dtype=np.float64)
    labels = np.load(labels_npy).astype(np.int64)
    if feats.shape[0] != n or labels.shape[0] != n:
        raise ValueError(f"{edges_csv}: {n} nodes, but features {feats.shape} and labels {labels.shape}")
    return adj.tocsr(), feats, labels


def read_airport(pickle_path: Path) -> tuple[sp.csr_matrix, np.ndarray]:
    """Adjacency and the 5 raw node attributes of the airport graph (a checksum-verified pickle)."""
    with Path(pickle_path).open("rb") as fh:
        graph = pickle.load(fh)  # noqa: S301 (the registry verified its sha256 first)
    nodes = list(graph.nodes())
    position = {u: i for i, u in enumerate(nodes)}
    rows, cols = [], []
    for u, v in graph.edges():
        rows += [position[u], position[v]]
        cols += [position[v], position[u]]
    n = len(nodes)
    adj = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    adj.data[:] = 1.0  # a self-loop is listed once but written twice above
    attrs = np.array([graph.nodes[u]["feat"] for u in nodes], dtype=np.float64)
    return adj, attrs


def airport_labels(attrs: np.ndarray) -> np.ndarray:
    """HGCN's airport classes: column 4 binned at 1, 8/7 and 9/7, shifted to start at 0."""
    digitized = np.digitize(attrs[:, 4], AIRPORT_LABEL_BINS)
    return (digitized - digitized.min()).astype(np.int64)


def row_normalize(mx: np.ndarray | sp.spmatrix) -> np.ndarray | sp.spmatrix:
    """Divide each row by its sum; all-zero rows stay zero."""
    rowsum = np.asarray(mx.sum(1)).flatten()
    with np.errstate(divide="ignore"):
        inv = np.where(rowsum == 0, 0.0, 1.0 / rowsum)
    if sp.issparse(mx):
        return sp.diags(inv) @ mx
    return mx * inv[:, None]


def degree_augment(adj: sp.spmatrix, feats: np.ndarray) -> np.ndarray:
    """HGCN's airport augmentation: one-hot degree (clipped at 5) and a constant column appended."""
    deg = np.asarray(adj.sum(0)).astype(int).flatten().clip(max=5)
    return np.hstack([feats, np.eye(6)[deg], np.ones((feats.shape[0], 1))])


def mask_edges(adj: sp.spmatrix, val_prop: float, test_prop: float, seed: int) -> dict[str, np.ndarray]:
    """HGCN's link split: positives and negatives (self-pairs included) from the upper triangle."""
    rng = np.random.RandomState(seed)
    # permutation(n) draws exactly what shuffling an n-row array draws, and is far faster on 2-D arrays
    pos = np.stack(sp.triu(adj).nonzero(), axis=1)
    pos = pos[rng.permutation(len(pos))]
    neg = np.stack(np.triu(1.0 - adj.toarray()).nonzero(), axis=1)
    neg = neg[rng.permutation(len(neg))]
    n_val, n_test = int(len(pos) * val_prop), int(len(pos) * test_prop)
    val, test, train = pos[:n_val], pos[n_val : n_val + n_test], pos[n_val + n_test :]
    return {
        "train_pos": train,
        "val_pos": val,
        "test_pos": test,
        "val_neg": neg[:n_val],
        "test_neg": neg[n_val : n_val + n_test],
        # the training pool keeps every negative and the held-out positives, as the original does
        "train_neg_pool": np.concatenate([neg, val, test]),
    }


def split_nodes_faithful(labels: np.ndarray, val_prop: float, test_prop: float, seed: int) -> dict[str, np.ndarray]:
    """HGCN's node split, bug included: 'positives' are labels != 0, 'negatives' labels != 1."""
    rng = np.random.RandomState(seed)
    pos = labels.nonzero()[0]
    neg = (1 - labels).nonzero()[0]
    rng.shuffle(pos)
    rng.shuffle(neg)
    nb = min(len(pos), len(neg))
    nb_val, nb_test = round(val_prop * nb), round(test_prop * nb)
    return {
        "val": np.concatenate([pos[:nb_val], neg[:nb_val]]),
        "test": np.concatenate([pos[nb_val : nb_val + nb_test], neg[nb_val : nb_val + nb_test]]),
        "train": np.concatenate([pos[nb_val + nb_test :], neg[nb_val + nb_test :]]),
    }


def split_nodes_stratified(labels: np.ndarray, val_prop: float, test_prop: float, seed: int) -> dict[str, np.ndarray]:
    """A clean stratified split: disjoint train/val/test with each class in proportion."""
    rng = np.random.RandomState(seed)
    parts: dict[str, list[np.ndarray]] = {"train": [], "val": [], "test": []}
    for cls in np.unique(labels):
        idx = np.flatnonzero(labels == cls)
        rng.shuffle(idx)
        n_val, n_test = round(val_prop * len(idx)), round(test_prop * len(idx))
        parts["val"].append(idx[:n_val])
        parts["test"].append(idx[n_val : n_val + n_test])
        parts["train"].append(idx[n_val + n_test :])
    return {k: np.sort(np.concatenate(v)) for k, v in parts.items()}


def _sparse_tensor(mx: sp.spmatrix) -> torch.Tensor:
    coo = sp.coo_matrix(mx)
    index = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
    values = torch.from_numpy(coo.data).float()
    return torch.sparse_coo_tensor(index, values, coo.shape, check_invariants=True).coalesce()


def _graph_data(adj: sp.spmatrix, feats: np.ndarray, normalize_feats: bool, augment: bool) -> Data:
    if normalize_feats:
        feats = row_normalize(feats)
    if augment:
        feats = degree_augment(adj, feats)
    looped = adj + sp.eye(adj.shape[0])
    inv_sqrt = 1.0 / np.sqrt(np.asarray(looped.sum(1)).flatten())
    edge_index = torch.from_numpy(np.vstack(adj.nonzero()).astype(np.int64))
    return Data(
        x=torch.tensor(feats, dtype=torch.float32), edge_index=edge_index, num_nodes=adj.shape[0],
        adj=_sparse_tensor(row_normalize(looped)),  # HGCN's D^-1 (A + I), for GCN, HGCN
        adj_mean=_sparse_tensor(row_normalize(adj)),  # D^-1 A, the mean over neighbours (SAGE)
        adj_sym=_sparse_tensor(sp.diags(inv_sqrt) @ looped @ sp.diags(inv_sqrt)),  # D^-1/2 (A + I) D^-1/2 (SGC)
    )


def raw_graph(dataset: str, files: dict[str, Path] | None = None) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Adjacency, raw features and labels of an HGCN dataset, from registry files unless given."""
    files = resolve_dataset(dataset) if files is None else files
    if dataset == "airport":
        adj, attrs = read_airport(files["airport.p"])
        return adj, attrs, airport_labels(attrs)
    return read_disease(files[f"{dataset}.edges.csv"], files[f"{dataset}.labels.npy"], files.get(f"{dataset}.feats.npz"))


def link_prediction_data(
    dataset: str, normalize_feats: bool, split_seed: int = 1234, files: dict[str, Path] | None = None
) -> Data:
    """A link-prediction task as HGCN builds it: 85/5/10 split, message passing on train edges only."""
    adj, feats, _ = raw_graph(dataset, files)
    return link_split_data(adj, feats, normalize_feats, split_seed, augment=dataset == "airport")


def link_split_data(adj: sp.spmatrix, feats: np.ndarray, normalize_feats: bool, split_seed: int, augment: bool = False) -> Data:
    """HGCN's link split of any graph with features (also the synthetic trees)."""
    split = mask_edges(adj, 0.05, 0.10, split_seed)
    train = split["train_pos"]
    adj_train = sp.coo_matrix((np.ones(len(train)), (train[:, 0], train[:, 1])), shape=adj.shape)
    adj_train = (adj_train + adj_train.T).tocsr()
    data = _graph_data(adj_train, feats, normalize_feats, augment=augment)
    for key, value in split.items():
        data[key] = torch.from_numpy(value.astype(np.int64))
    return data


NC_PROPORTIONS = {"disease_nc": (0.10, 0.60), "airport": (0.15, 0.15)}


def node_classification_data(
    dataset: str, normalize_feats: bool, split: str = "faithful", split_seed: int = 1234,
    files: dict[str, Path] | None = None, label_feature: bool = False,
) -> Data:
    """A node-classification task: HGCN's (leaky) split or a clean stratified one; airport without
    column 4, the one its classes are binned from, unless ``label_feature``."""
    adj, feats, labels = raw_graph(dataset, files)
    if dataset == "airport" and not label_feature:
        feats = feats[:, :4]
    val_prop, test_prop = NC_PROPORTIONS[dataset]
    if split == "faithful":
        idx = split_nodes_faithful(labels, val_prop, test_prop, split_seed)
    elif split == "stratified":
        idx = split_nodes_stratified(labels, 0.15, 0.15, split_seed)
    else:
        raise ValueError(f"unknown split {split!r}; use 'faithful' or 'stratified'")
    data = _graph_data(adj, feats, normalize_feats, augment=dataset == "airport")
    data.y = torch.from_numpy(labels)
    for key, value in idx.items():
        data[f"{key}_idx"] = torch.from_numpy(value.astype(np.int64))
    return data
