"""han-vs-gat: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

from typing import Any

import torch
from torch_geometric.nn import GATConv

from graphrepro import pages
from graphrepro.bench import compare_seconds, seconds_per_run
from graphrepro.chapters.han_vs_gat.configs import available
from graphrepro.chapters.han_vs_gat.paper import CHAPTER
from graphrepro.experiments import hgb
from graphrepro.models.hgb import gat_layer


def bench(seeds: int) -> list[dict[str, Any]]:
    """One GAT layer (8 heads of 64, forward and backward) on each dataset's whole graph, PyG's per-edge
    messages against our sparse product; then seconds per run of GCN and GAT on IMDB, ten epochs each."""
    rows = []
    for dataset in available(pages.resolve(CHAPTER, "standard")):
        data = hgb.prepare(hgb.make_config(dataset, "GAT", 0))
        graph, n = data["graph"], data["adj"].shape[0]
        x = torch.randn(n, 64, requires_grad=True)
        ours = gat_layer(64, 64, 8, 0.0, 0.05, activation=False)
        theirs = GATConv(64, 64, heads=8, negative_slope=0.05, add_self_loops=False)
        rows.append(compare_seconds(
            f"GAT layer, {dataset} ({graph['edge_index'].shape[1]:,} edges)",
            ("PyG GATConv", lambda: theirs(x, graph["edge_index"]).sum().backward()),
            ("sparse product", lambda: ours(x, graph, None)[0].sum().backward())))
    return rows + [seconds_per_run(hgb.EXPERIMENT, [hgb.make_config("IMDB", m, s, max_epochs=10) for s in range(seeds)],
                                   f"{m}, IMDB, 10 epochs") for m in ("GCN", "GAT")]
