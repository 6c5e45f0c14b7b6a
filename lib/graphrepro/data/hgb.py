"""HGB node classification (Lv et al. 2021): DBLP, ACM and IMDB from the original release's zips.

Each becomes a PyG ``HeteroData``: every node type with its features (none for featureless types),
every relation id of ``link.dat`` as its own edge type (reverse directions are separate ids upstream),
and on the target type ``y`` with ``train_mask`` (``label.dat``, train + validation) and ``test_mask``
(``label.dat.test``). IMDB is multi-label: ``y`` is multi-hot. The parsed arrays are cached as one
``.npz`` (read back without pickle) so the 100+ MB text files are parsed once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import HeteroData

from graphrepro import paths
from graphrepro.data.archive import read_zip_members
from graphrepro.data.registry import DATASETS, file_digest, resolve

FILES = ("node.dat", "link.dat", "label.dat", "label.dat.test")


@dataclass(frozen=True)
class HGBSpec:
    """What an HGB dataset must contain (node and edge counts from the HGB paper, checked on load)."""

    name: str
    node_types: tuple[str, ...]  # by type id; type 0 is the target
    nodes: int
    edges: int
    classes: int
    multilabel: bool = False


SPECS = {
    "DBLP": HGBSpec("DBLP", ("author", "paper", "term", "venue"), 26_128, 239_566, 4),
    "ACM": HGBSpec("ACM", ("paper", "author", "subject", "term"), 10_942, 547_872, 3),
    "IMDB": HGBSpec("IMDB", ("movie", "director", "actor", "keyword"), 21_420, 86_642, 5, multilabel=True),
}


def _lines(data: bytes) -> list[list[str]]:
    return [line.split("\t") for line in data.decode().splitlines() if line.strip()]


def parse(members: dict[str, bytes], spec: HGBSpec) -> dict[str, np.ndarray]:
    """Parse the four HGB text files into flat arrays; check counts against ``spec``."""
    nodes = _lines(members["node.dat"])
    ids = np.array([int(r[0]) for r in nodes])
    if not np.array_equal(np.sort(ids), np.arange(len(ids))):
        raise ValueError(f"HGB {spec.name}: node ids are not 0..N-1")
    order = np.argsort(ids)
    node_type = np.array([int(r[2]) for r in nodes])[order]
    arrays: dict[str, np.ndarray] = {"node_type": node_type}
    for t in range(len(spec.node_types)):
        rows = [nodes[i] for i in order if int(nodes[i][2]) == t]
        if rows and len(rows[0]) > 3 and rows[0][3].strip():
            feats = np.stack([np.array(r[3].split(","), dtype=np.float32) for r in rows])
            matrix = sp.csr_matrix(feats)
            arrays[f"x{t}_data"], arrays[f"x{t}_indices"], arrays[f"x{t}_indptr"] = matrix.data, matrix.indices, matrix.indptr
            arrays[f"x{t}_shape"] = np.array(matrix.shape)
    links = np.array([[int(r[0]), int(r[1]), int(r[2])] for r in _lines(members["link.dat"])], dtype=np.int64)
    arrays["links"] = links
    for split, name in (("train", "label.dat"), ("test", "label.dat.test")):
        rows = _lines(members[name])
        arrays[f"{split}_nodes"] = np.array([int(r[0]) for r in rows], dtype=np.int64)
        hot = np.zeros((len(rows), spec.classes), dtype=np.float32)
        for i, r in enumerate(rows):
            hot[i, [int(c) for c in r[3].split(",")]] = 1
        arrays[f"{split}_labels"] = hot
    check(arrays, spec)
    return arrays


def check(arrays: dict[str, np.ndarray], spec: HGBSpec) -> None:
    """Raise ``ValueError`` unless node, edge and class counts are the expected ones."""
    problems = []
    if len(arrays["node_type"]) != spec.nodes:
        problems.append(f"{len(arrays['node_type'])} nodes, expected {spec.nodes}")
    if len(arrays["links"]) != spec.edges:
        problems.append(f"{len(arrays['links'])} edges, expected {spec.edges}")
    labels = np.concatenate([arrays["train_labels"], arrays["test_labels"]])
    if labels.shape[1] != spec.classes or not labels.any(axis=0).all():
        problems.append(f"labels use {int(labels.any(axis=0).sum())} of {spec.classes} classes")
    if not spec.multilabel and not (labels.sum(axis=1) == 1).all():
        problems.append("a node has several labels in a single-label dataset")
    if set(arrays["train_nodes"]) & set(arrays["test_nodes"]):
        problems.append("a node is in both label.dat and label.dat.test")
    if problems:
        raise ValueError(f"HGB {spec.name} is not the expected release: " + "; ".join(problems))


def to_heterodata(arrays: dict[str, np.ndarray], spec: HGBSpec) -> HeteroData:
    """Build the ``HeteroData`` from parsed arrays (local node ids per type)."""
    data = HeteroData()
    node_type = arrays["node_type"]
    local = np.zeros(len(node_type), dtype=np.int64)
    for t, name in enumerate(spec.node_types):
        members = np.flatnonzero(node_type == t)
        local[members] = np.arange(len(members))
        data[name].num_nodes = len(members)
        if f"x{t}_data" in arrays:
            matrix = sp.csr_matrix((arrays[f"x{t}_data"], arrays[f"x{t}_indices"], arrays[f"x{t}_indptr"]),
                                   shape=tuple(arrays[f"x{t}_shape"]))
            data[name].x = torch.from_numpy(matrix.toarray())
    links = arrays["links"]
    for rel in np.unique(links[:, 2]):
        part = links[links[:, 2] == rel]
        src_types, dst_types = np.unique(node_type[part[:, 0]]), np.unique(node_type[part[:, 1]])
        if len(src_types) != 1 or len(dst_types) != 1:
            raise ValueError(f"HGB {spec.name}: relation {rel} joins several node types")
        key = (spec.node_types[src_types[0]], f"rel{rel}", spec.node_types[dst_types[0]])
        data[key].edge_index = torch.from_numpy(np.stack([local[part[:, 0]], local[part[:, 1]]]))
    target = data[spec.node_types[0]]
    n = target.num_nodes
    y = torch.zeros((n, spec.classes)) if spec.multilabel else torch.full((n,), -1, dtype=torch.long)
    for split in ("train", "test"):
        nodes = torch.from_numpy(local[arrays[f"{split}_nodes"]])
        labels = torch.from_numpy(arrays[f"{split}_labels"])
        y[nodes] = labels if spec.multilabel else labels.argmax(1)
        mask = torch.zeros(n, dtype=torch.bool)
        mask[nodes] = True
        target[f"{split}_mask"] = mask
    target.y = y
    return data


def load_zip(path: Path, spec: HGBSpec, cache: Path | None = None) -> HeteroData:
    """Parse an HGB zip once into ``cache`` (keyed by the zip's sha256), then build the ``HeteroData``."""
    cache = (paths.cache_dir() / "processed") if cache is None else cache
    cached = cache / f"hgb_{spec.name.lower()}_{file_digest(path, 'sha256')[:16]}.npz"
    if cached.exists():
        with np.load(cached, allow_pickle=False) as npz:
            arrays = dict(npz)
    else:
        arrays = parse(read_zip_members(path, FILES), spec)
        paths.write_atomically(cached, lambda tmp: np.savez_compressed(tmp, **arrays))
    return to_heterodata(arrays, spec)


def load_hgb(name: str) -> HeteroData:
    """HGB ``name`` (DBLP, ACM or IMDB) from the registry (cache, mirror or download, checksum-verified)."""
    spec = SPECS[name]
    (remote,) = DATASETS[f"hgb_{name.lower()}"].files
    return load_zip(resolve(remote), spec)
