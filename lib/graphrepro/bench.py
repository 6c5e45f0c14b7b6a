"""Benchmarks that print figures: seconds per training run, and each chapter's wall time."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from graphrepro import chapters, experiments, runner
from graphrepro.grid import run_batch


def seconds_per_run(experiment: experiments.Experiment, configs: list[dict[str, Any]], label: str,
                    device: str = "cpu") -> dict[str, Any]:
    """Configs that differ only in their seed, trained one at a time and then (if the experiment stacks
    members) as one batch, timed in the same process; the ratio is the batching speedup."""
    start = time.perf_counter()
    data = experiment.prepare(configs[0])
    prepare_s = time.perf_counter() - start
    alone = [run_batch(experiment, [c], data, device)[0] for c in configs]
    alone_s = sum(r["wall_s"] for r in alone)
    together_s = run_batch(experiment, configs, data, device)[0]["batch_wall_s"] if experiment.stacks else alone_s
    return {
        "run": label,
        "seeds": len(configs),
        "epochs (mean)": sum(r["metrics"].get("epochs_run", 0) for r in alone) / len(configs),
        "s per run, one at a time": alone_s / len(configs),
        "s per run, batched": together_s / len(configs),
        "speedup": alone_s / together_s,
        "data preparation s": prepare_s,
    }


def chapter_wall_time(slug: str, profile: str = "standard") -> dict[str, float | str]:
    """Recorded training time of the profile's runs, and the time to execute the page from those records
    (only when every run is recorded: otherwise executing the page would train the rest)."""
    params = chapters.resolve(slug, profile)
    configs, runs = chapters.chapter_module(slug).chapter_records(params)
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


def chapter_bench(slug: str, seeds: int) -> pd.DataFrame:
    """The chapter's own timing runs (its ``bench``)."""
    return pd.DataFrame(chapters.chapter_module(slug).bench(seeds))
