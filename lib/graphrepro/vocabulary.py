"""The names a run's config can hold (datasets, models, split kinds), declared without torch: the chapters
declare their parameters from these, so that ``list``, ``--help`` and a refused value answer without
loading torch, PyG or pykeen. Each experiment module reads its own names from here."""

from __future__ import annotations

FAIR_EVAL_DATASETS = ("cora", "citeseer")
FAIR_EVAL_KINDS = ("dense", "sparse_balanced", "sparse_stratified", "public")  # public: the one Planetoid split (fold 0)
FAIR_EVAL_MODELS = ("MLP", "GCN", "FAGCN")

HGB_DATASETS = ("DBLP", "ACM", "IMDB")
HGB_MODELS = ("GCN", "GAT", "SimpleHGN", "HAN", "GAT-metapath")

LRGB_MODELS = ("GCN", "GINE", "GatedGCN")  # the message-passing GNNs; GPS is the graph transformer of the reference line

LINKPRED_DATASETS = ("cora", "citeseer", "airport")
LINKPRED_MODELS = ("MLP", "GCN", "GAT", "GIN")

KG_DATASETS = ("nations", "kinships", "umls", "wn18rr", "fb15k237")
KG_MODELS = ("TransE", "RotatE", "ComplEx", "TuckER")
