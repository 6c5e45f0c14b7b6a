"""WikiVitals (level-5 vital articles of Wikipedia, April 2022): 48,512 articles, 32 level-1 classes.

Layout read (upstream ``dataset/txt/``): ``classes1.txt`` holds ``wikiid<TAB>label path`` (verified
from the published file); ``features_vocabulary.txt`` one feature name per line (verified);
``features.txt`` is read as ``wikiid<TAB>feature[ feature ...]`` (a feature may carry ``:count``, as in
``titles_countvec.txt``) and ``links_filtered.txt`` as one directed link ``wikiid<TAB>wikiid`` per
line. Those two files were never obtainable here, so their layout follows the sibling files and the
upstream README; a file that does not parse raises a clear error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from graphrepro.data.registry import resolve_dataset


def _pairs(path: Path) -> list[tuple[str, str]]:
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t", 1)
        if len(parts) != 2:
            raise ValueError(f"{path}:{number}: expected 'wikiid<TAB>value', got {line[:80]!r}")
        rows.append((parts[0].strip(), parts[1].strip()))
    return rows


def wikivitals_data(files: dict[str, Path] | None = None, level: int = 1) -> Data:
    """Binary bag-of-words features, undirected links and level-``level`` labels (string names kept)."""
    files = resolve_dataset("wikivitals") if files is None else files
    labels = _pairs(files[f"classes{level}.txt"])
    ids = {wikiid: i for i, (wikiid, _) in enumerate(labels)}
    names = sorted({path for _, path in labels})
    y = torch.tensor([names.index(path) for _, path in labels])
    vocabulary = {w.strip(): j for j, w in enumerate(Path(files["features_vocabulary.txt"]).read_text().splitlines()) if w.strip()}
    x = torch.zeros(len(ids), len(vocabulary))
    for wikiid, feats in _pairs(files["features.txt"]):
        if wikiid in ids:
            cols = [vocabulary[f.split(":")[0]] for f in feats.split() if f.split(":")[0] in vocabulary]
            x[ids[wikiid], cols] = 1.0
    links = [(ids[a], ids[b]) for a, b in _pairs(files["links_filtered.txt"]) if a in ids and b in ids]
    edge_index = torch.from_numpy(np.array(links, dtype=np.int64).reshape(-1, 2).T.copy())
    data = Data(x=x, edge_index=to_undirected(edge_index, num_nodes=len(ids)), y=y, num_nodes=len(ids))
    data.class_names = names
    return data
