"""Planetoid citation graphs (Cora, Citeseer, Pubmed) read by PyG's own reader from verified files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from torch_geometric.data import Data
from torch_geometric.io.planetoid import read_planetoid_data

from graphrepro.data.registry import resolve_dataset

PARTS = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def planetoid_data(name: str, files: dict[str, Path] | None = None) -> Data:
    """A Planetoid graph with its public split masks; files come checksum-verified from the registry."""
    files = resolve_dataset(name) if files is None else files
    with tempfile.TemporaryDirectory() as folder:
        for part in PARTS:  # PyG's reader wants the eight files side by side
            (Path(folder) / f"ind.{name}.{part}").symlink_to(Path(files[f"ind.{name}.{part}"]).resolve())
        return read_planetoid_data(folder, name)
