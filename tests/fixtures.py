"""Small files in the upstream formats, written by the tests that read them (the library ships no test data)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import torch
from torch_geometric.data import Data

from graphrepro.data.hgb import HGBSpec


def write_fixture(path: Path, spec: HGBSpec, rng: np.random.Generator, per_type: int = 6, dims: int = 4,
                  junk: bool = True, member_prefix: str = "") -> None:
    """A small HGB-format zip: ``per_type`` nodes per type, types but the last with features,
    one relation and its reverse between the target type and every other, labels on the target type."""
    n_types = len(spec.node_types)
    node_lines, links = [], []
    for t in range(n_types):
        for i in range(per_type):
            gid = t * per_type + i
            feats = "\t" + ",".join(f"{v:.2f}" for v in rng.random(dims)) if t < n_types - 1 else ""
            node_lines.append(f"{gid}\tn{gid}\t{t}{feats}")
    for t in range(1, n_types):
        for i in range(per_type):
            a, b = i, t * per_type + (i + t) % per_type
            links += [f"{a}\t{b}\t{2 * (t - 1)}\t1.0", f"{b}\t{a}\t{2 * (t - 1) + 1}\t1.0"]
    labels = [(i, sorted({i % spec.classes, (i + 1) % spec.classes}) if spec.multilabel else [i % spec.classes])
              for i in range(per_type)]
    line = lambda i, c: f"{i}\tn{i}\t0\t{','.join(map(str, c))}"  # noqa: E731
    cut = per_type // 2
    files = {"node.dat": node_lines, "link.dat": links, "label.dat": [line(i, c) for i, c in labels[:cut]],
             "label.dat.test": [line(i, c) for i, c in labels[cut:]]}
    with zipfile.ZipFile(path, "w") as archive:
        for name, rows in files.items():
            archive.writestr(f"{member_prefix}{spec.name}/{name}", "\n".join(rows) + "\n")
        if junk:
            archive.writestr(f"__MACOSX/{spec.name}/._node.dat", b"\x00junk")
            archive.writestr(f"{spec.name}/.DS_Store", b"\x00junk")


def random_molecules(n: int, seed: int = 0) -> list[Data]:
    """Small random graphs in Peptides-func's format (OGB atom and bond integer features, 10 labels)."""
    from ogb.utils.features import get_atom_feature_dims, get_bond_feature_dims

    g = torch.Generator().manual_seed(seed)
    graphs = []
    for _ in range(n):
        nodes = int(torch.randint(4, 12, (1,), generator=g))
        src = torch.arange(nodes - 1)
        ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])  # a chain, both directions
        x = torch.stack([torch.randint(0, d, (nodes,), generator=g) for d in get_atom_feature_dims()], 1)
        half = torch.stack([torch.randint(0, d, (nodes - 1,), generator=g) for d in get_bond_feature_dims()], 1)
        y = (torch.rand(1, 10, generator=g) < 0.3).float()
        graphs.append(Data(x=x, edge_index=ei, edge_attr=torch.cat([half, half]), y=y))
    return graphs
