"""mrr-variants: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from graphrepro.bench import compare_seconds
from graphrepro.data import kg as kg_data
from graphrepro.experiments import kg
from graphrepro.metrics import ranking


def bench(seeds: int) -> list[dict[str, Any]]:
    """Seconds to rank a million queries of 100 candidates each and to evaluate every metric on them; then
    RotatE's scores of 8 queries against WN18RR's 40,943 entities (500 complex dimensions, random unit-modulus
    relations), pykeen's interaction against ``kg.rotated_distances``."""
    from pykeen.nn.modules import RotatEInteraction  # heavy (pykeen): only this benchmark needs it

    rng = np.random.default_rng(0)
    start = time.perf_counter()
    total = 0
    for _ in range(10):
        scores = rng.random((100_000, 100))
        r = ranking.ranks_from_scores(scores, rng.integers(0, 100, 100_000))
        total += len(r["realistic"])
    rank_s = time.perf_counter() - start
    ranks_ = np.floor(rng.random(1_000_000) * 100) + 1
    counts = np.full(1_000_000, 100)
    start = time.perf_counter()
    for m in ranking.RANK_METRICS:
        ranking.metric(m, ranks_, counts)
    rows = [{"run": "rank 1,000,000 queries x 100 candidates", "seconds": rank_s},
            {"run": f"all {len(ranking.RANK_METRICS)} metrics on 1,000,000 ranks", "seconds": time.perf_counter() - start}]
    generator = torch.Generator().manual_seed(0)
    entities = torch.randn(kg_data.STATS["wn18rr"].entities, 500, dtype=torch.cfloat, generator=generator)
    heads, relations = entities[:8], torch.polar(torch.ones(8, 500), 6.3 * torch.rand(8, 500, generator=generator))
    with torch.no_grad():
        rows.append(compare_seconds("RotatE, 8 queries x 40,943 entities", ("pykeen's interaction", lambda: RotatEInteraction()(
            heads[:, None], relations[:, None], entities[None])), ("kg.rotated_distances", lambda: kg.rotated_distances(heads * relations, entities)),
            repeats=1))
    return rows
