"""han-vs-gat: the paper's numbers and protocol, as data."""

from __future__ import annotations

from graphrepro import vocabulary

CHAPTER = "han-vs-gat"


DATASETS = vocabulary.HGB_DATASETS


MAIN_MODELS = ("GCN", "GAT", "HAN", "SimpleHGN")


LABELS = {"GCN": "GCN", "GAT": "GAT", "HAN": "HAN", "SimpleHGN": "Simple-HGN", "GAT-metapath": "GAT, one meta-path graph"}


ABLATIONS = {"without edge-type embeddings": {"type_embedding": False}, "without residuals": {"residual": False},
             "without L2 normalisation": {"l2_norm": False}}


# HGB paper, Table 3 (node classification, test): (macro mean, std, micro mean, std) in percent, 5 runs.
PAPER_RUNS = 5  # "averages and standard variances across five runs"
PAPER: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("HAN", "DBLP"): (91.67, 0.49, 92.05, 0.62), ("HAN", "IMDB"): (57.74, 0.96, 64.63, 0.58), ("HAN", "ACM"): (90.89, 0.43, 90.79, 0.43),
    ("GCN", "DBLP"): (90.84, 0.32, 91.47, 0.34), ("GCN", "IMDB"): (57.88, 1.18, 64.82, 0.64), ("GCN", "ACM"): (92.17, 0.24, 92.12, 0.23),
    ("GAT", "DBLP"): (93.83, 0.27, 93.39, 0.30), ("GAT", "IMDB"): (58.94, 1.35, 64.86, 0.43), ("GAT", "ACM"): (92.26, 0.94, 92.19, 0.93),
    ("SimpleHGN", "DBLP"): (94.01, 0.24, 94.46, 0.22), ("SimpleHGN", "IMDB"): (63.53, 1.36, 67.36, 0.57),
    ("SimpleHGN", "ACM"): (93.42, 0.44, 93.35, 0.45),
}


FREEBASE = "Freebase: not obtainable here (no mirror or snapshot of the HGB Freebase files)"
