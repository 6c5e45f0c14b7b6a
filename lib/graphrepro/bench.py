"""Benchmarks that print figures: seconds per training run, and the chapter's wall time."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pandas as pd

from graphrepro import chapters, runner
from graphrepro.claims import hgcn_mlp_bug
from graphrepro.experiments import hgcn
from graphrepro.grid import run_batch


def seconds_per_run(models: tuple[str, ...] = ("MLP", "HGCN"), seeds: int = 5, device: str = "cpu") -> pd.DataFrame:
    """Standard-profile runs on disease_lp link prediction: ``seeds`` runs one at a time, then the same
    seeds as one stacked batch, timed in the same process; the ratio is the batching speedup."""
    rows = []
    for model in models:
        variant = "debugged" if model in ("MLP", "GCN") else "none"
        config = hgcn.make_config("disease_lp", "lp", model, 0, variant, **hgcn_mlp_bug.TASK_SETTINGS["disease_lp/lp"])
        start = time.perf_counter()
        data = hgcn.prepare(config)
        prepare_s = time.perf_counter() - start
        configs = [{**config, "seed": s} for s in range(seeds)]
        alone = [run_batch(hgcn.EXPERIMENT, [c], data, device)[0] for c in configs]
        together = run_batch(hgcn.EXPERIMENT, configs, data, device)
        alone_s = sum(r["wall_s"] for r in alone)
        together_s = together[0]["batch_wall_s"]
        rows.append({
            "model": model,
            "seeds": seeds,
            "epochs (mean)": sum(r["metrics"]["epochs_run"] for r in alone) / seeds,
            "s per run, one at a time": alone_s / seeds,
            "s per run, batched": together_s / seeds,
            "speedup": alone_s / together_s,
            "data preparation s": prepare_s,
        })
    return pd.DataFrame(rows)


def chapter_wall_time(slug: str = hgcn_mlp_bug.CHAPTER, profile: str = "standard") -> dict[str, float | str]:
    """Recorded training time of the profile's runs, and the time to execute the page from those records
    (only when every run is recorded: otherwise executing the page would train the rest)."""
    params = chapters.resolve(slug, profile)
    configs, runs = hgcn_mlp_bug.chapter_records(params)
    wanted = len(configs)
    result: dict[str, float | str] = {
        "runs in the profile": wanted,
        "runs recorded": len(runs),
        "training seconds (sum of records)": float(runs.wall_s.sum()) if len(runs) else 0.0,
    }
    if len(runs) < wanted:
        result["page execution"] = f"skipped: {wanted - len(runs)} runs are not recorded yet"
        return result
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runner.execute(slug, profile, output_dir=Path(tmp))
    result["page execution seconds (from records)"] = time.perf_counter() - start
    return result
