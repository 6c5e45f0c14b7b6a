"""hgcn-mlp-bug: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

from typing import Any

from graphrepro.bench import seconds_per_run
from graphrepro.chapters.hgcn_mlp_bug.paper import TASK_SETTINGS
from graphrepro.experiments import hgcn


def bench(seeds: int) -> list[dict[str, Any]]:
    """Seconds per run on Disease link prediction (standard settings) for the MLP and HGCN, one at a time and batched."""
    rows = []
    for model in ("MLP", "HGCN"):
        variant = "debugged" if model in hgcn.EUCLIDEAN else "none"
        config = hgcn.make_config("disease_lp", "lp", model, 0, variant, **TASK_SETTINGS["disease_lp/lp"])
        rows.append(seconds_per_run(hgcn.EXPERIMENT, [{**config, "seed": s} for s in range(seeds)], f"{model}, disease_lp link prediction"))
    return rows
