"""LRGB Peptides-func (Dwivedi et al. 2022): 15,535 peptides from SMILES, 10 binary labels, the official
stratified split. Molecules become graphs through OGB's ``smiles2graph`` (RDKit; 9 atom and 3 bond
integer features), processed once into the cache with a progress bar; the split pickle is unpickled
only after its sha256 matches the registry's pin."""

from __future__ import annotations

import functools
import gzip
import io
import os
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from torch_geometric.data import Data
from tqdm.auto import tqdm

from graphrepro import paths
from graphrepro.data.registry import DATASETS, RemoteFile, file_digest, resolve, verify


@dataclass(frozen=True)
class PeptideStats:
    """What Peptides-func must contain (the LRGB paper's Table 1 and the official split sizes)."""

    graphs: int = 15_535
    nodes: int = 2_344_859
    edges: int = 4_773_974  # directed
    split: tuple[int, int, int] = (10_873, 2_331, 2_331)
    tasks: int = 10


STATS = PeptideStats()
SPLITS = ("train", "val", "test")


def smiles_to_arrays(smiles: list[str], progress: bool = True) -> dict[str, np.ndarray]:
    """Every molecule through OGB's ``smiles2graph``, concatenated: node and edge features, edge index
    (local to each graph), and the offsets of each graph's nodes and edges."""
    os.environ.setdefault("OUTDATED_IGNORE", "1")  # ogb would otherwise ask PyPI for a newer version
    from ogb.utils import smiles2graph  # heavy (rdkit): only building Peptides from SMILES needs it
    from rdkit import RDLogger

    xs, eis, eas, n_nodes, n_edges = [], [], [], [0], [0]
    RDLogger.DisableLog("rdApp.*")  # RDKit warns on stderr about lone hydrogens in some peptides
    try:
        graphs = [smiles2graph(s) for s in tqdm(smiles, desc="Peptides-func: molecules to graphs", unit="mol",
                                                disable=not progress)]
    finally:
        RDLogger.EnableLog("rdApp.*")
    for g in graphs:
        xs.append(g["node_feat"])
        eis.append(g["edge_index"])
        eas.append(g["edge_feat"])
        n_nodes.append(n_nodes[-1] + g["num_nodes"])
        n_edges.append(n_edges[-1] + g["edge_index"].shape[1])
    return {"x": np.concatenate(xs).astype(np.int64), "edge_index": np.concatenate(eis, axis=1).astype(np.int64),
            "edge_attr": np.concatenate(eas).astype(np.int64), "node_ptr": np.array(n_nodes), "edge_ptr": np.array(n_edges)}


def read_labels(csv_gz: Path) -> tuple[list[str], np.ndarray]:
    """The SMILES strings and the [graphs, 10] label matrix of the CSV."""
    frame = pd.read_csv(io.BytesIO(gzip.decompress(Path(csv_gz).read_bytes())))
    labels = np.array([np.array(parse_label_list(v), dtype=np.float32) for v in frame["labels"]])
    return list(frame["smiles"]), labels


def parse_label_list(text: str) -> list[float]:
    """Parse a label cell such as '[0, 1, 0]' (never ``eval``)."""
    return [float(v) for v in text.strip("[] ").replace(",", " ").split()]


def read_split(path: Path, spec: RemoteFile) -> dict[str, np.ndarray]:
    """The official split: verified against its pinned sha256 first, unpickled only then."""
    verify(path, spec)
    with open(path, "rb") as fh:
        split = pickle.load(fh)  # noqa: S301 - bytes pinned by sha256 just above
    return {k: np.asarray(split[k], dtype=np.int64) for k in SPLITS}


def check(arrays: dict[str, np.ndarray], stats: PeptideStats) -> None:
    """Raise ``ValueError`` unless the graph, node, edge and split counts are the expected ones."""
    found = PeptideStats(
        graphs=len(arrays["y"]), nodes=int(arrays["node_ptr"][-1]), edges=int(arrays["edge_ptr"][-1]),
        split=tuple(len(arrays[k]) for k in SPLITS), tasks=arrays["y"].shape[1],
    )
    if found != stats:
        raise ValueError(f"Peptides-func is not the expected release: found {found}, expected {stats}")
    every = np.sort(np.concatenate([arrays[k] for k in SPLITS]))
    if not np.array_equal(every, np.arange(found.graphs)):
        raise ValueError("Peptides-func split does not cover every graph exactly once")


def process(csv_gz: Path, split_path: Path, split_spec: RemoteFile, stats: PeptideStats = STATS,
            cache: Path | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """The processed arrays, from the cache when present, else built and cached (keyed by both files' sha256)."""
    cache = (paths.cache_dir() / "processed") if cache is None else cache
    tag = (file_digest(Path(csv_gz), "sha256")[:12] + file_digest(Path(split_path), "sha256")[:12])
    cached = cache / f"peptides_func_{tag}.npz"
    if cached.exists():
        return dict(_read_cached(cached, cached.stat().st_mtime_ns))
    smiles, labels = read_labels(csv_gz)
    arrays = {**smiles_to_arrays(smiles, progress), "y": labels, **read_split(split_path, split_spec)}
    check(arrays, stats)
    paths.write_atomically(cached, lambda tmp: np.savez_compressed(tmp, **arrays))
    return arrays


@functools.lru_cache(maxsize=1)
def _read_cached(cached: Path, mtime_ns: int) -> dict[str, np.ndarray]:
    """The cached arrays, decompressed once per process (a page's grid prepares several batches; the arrays are only
    read, never written in place); the file's mtime is part of the key, so a rebuilt cache file is read anew."""
    with np.load(cached, allow_pickle=False) as npz:
        return dict(npz)


def graphs(arrays: dict[str, np.ndarray]) -> dict[str, list[Data]]:
    """One PyG ``Data`` per peptide (x, edge_index, edge_attr, y of shape [1, 10]), grouped by split."""
    node_ptr, edge_ptr = arrays["node_ptr"], arrays["edge_ptr"]
    x, ei, ea, y = (torch.from_numpy(arrays[k]) for k in ("x", "edge_index", "edge_attr", "y"))

    def one(i: int) -> Data:
        a, b, c, d = node_ptr[i], node_ptr[i + 1], edge_ptr[i], edge_ptr[i + 1]
        return Data(x=x[a:b], edge_index=ei[:, c:d], edge_attr=ea[c:d], y=y[i : i + 1])

    return {k: [one(int(i)) for i in arrays[k]] for k in SPLITS}


def load_peptides_func(progress: bool = True) -> dict[str, list[Data]]:
    """Peptides-func by split, from the registry's checksum-verified files."""
    csv_spec, split_spec = DATASETS["peptides_func"].files
    return graphs(process(resolve(csv_spec), resolve(split_spec), split_spec, progress=progress))
