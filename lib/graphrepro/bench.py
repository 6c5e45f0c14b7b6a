"""Benchmarks that print figures: seconds per training run, and the chapter's wall time."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pandas as pd

from graphrepro import chapters, runner, store
from graphrepro.claims import hgcn_mlp_bug
from graphrepro.experiments import hgcn
from graphrepro.grid import run_one


def seconds_per_run(models: tuple[str, ...] = ("MLP", "HGCN"), repeats: int = 2, device: str = "cpu") -> pd.DataFrame:
    """Time full standard-profile training runs on disease_lp link prediction, one model at a time."""
    rows = []
    for model in models:
        variant = "debugged" if model in ("MLP", "GCN") else "none"
        config = hgcn.make_config("disease_lp", "lp", model, 0, variant, **hgcn_mlp_bug.TASK_SETTINGS["disease_lp/lp"])
        start = time.perf_counter()
        data = hgcn.prepare(config)
        prepare_s = time.perf_counter() - start
        for seed in range(repeats):
            record = run_one(hgcn.EXPERIMENT, {**config, "seed": seed}, data, device)
            epochs = record["metrics"]["epochs_run"]
            rows.append({
                "model": model, "seed": seed, "epochs": epochs, "seconds": record["wall_s"],
                "ms per epoch": 1000 * record["wall_s"] / epochs, "data preparation s": prepare_s,
            })
    return pd.DataFrame(rows)


def chapter_wall_time(slug: str = hgcn_mlp_bug.CHAPTER, profile: str = "standard") -> dict[str, float]:
    """Recorded training time of the profile's grid, and the time to execute the page from those records."""
    params = chapters.resolve(slug, profile)
    wanted = {store.config_key(hgcn.EXPERIMENT.name, hgcn.EXPERIMENT.version, c) for c in hgcn_mlp_bug.table1_configs(params)}
    runs = store.load(slug)
    runs = runs[runs.key.isin(wanted)] if not runs.empty else runs
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runner.execute(slug, profile, output_dir=Path(tmp))
    return {
        "runs recorded": len(runs),
        "runs in grid": len(wanted),
        "training seconds (sum of records)": float(runs.wall_s.sum()) if len(runs) else 0.0,
        "page execution seconds (from records)": time.perf_counter() - start,
    }
