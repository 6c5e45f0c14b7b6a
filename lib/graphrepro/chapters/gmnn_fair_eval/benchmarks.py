"""gmnn-fair-eval: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

from typing import Any

from graphrepro.bench import batched_profile, batched_speedup
from graphrepro.experiments import fair_eval


def bench(seeds: int) -> list[dict[str, Any]]:
    """The batched trainer against one-at-a-time training on Cora (MLP, GCN, FAGCN), 20 epochs; then where
    the time of a batched GCN member-epoch goes, at one member and at 32."""
    data = fair_eval.prepare(fair_eval.make_config("cora", 0, "dense", "GCN", 0))
    sizes = tuple(sorted({1, max(1, seeds), 8, 32}))
    graph = (data["graph"], data["y"], data["split"])
    return ([row for model in ("MLP", "GCN", "FAGCN") for row in batched_speedup(model, *graph, sizes, epochs=20)]
            + [row for members in (1, 32) for row in batched_profile("GCN", *graph, members=members)])
