"""Grids of runs: train what the store lacks, reuse what it has, one progress bar per grid."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from graphrepro import experiments, store
from graphrepro.environment import run_environment
from graphrepro.train import resolve_device


def show_progress() -> bool:
    """Progress bars are on unless ``GRAPHREPRO_PROGRESS=0`` (the book runner sets it)."""
    return os.environ.get("GRAPHREPRO_PROGRESS", "1") != "0"


def run_one(experiment: experiments.Experiment, config: dict[str, Any], data: Any, device: str = "auto") -> dict[str, Any]:
    """Train one config and return its full record (not yet written)."""
    dev = resolve_device(device)
    start = time.perf_counter()
    metrics = experiment.train(data, config, dev)
    return {
        "key": store.config_key(experiment.name, experiment.version, config),
        "experiment": experiment.name,
        "version": experiment.version,
        "config": config,
        "metrics": metrics,
        "wall_s": round(time.perf_counter() - start, 3),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **run_environment(dev),
    }


def run_grid(
    chapter: str, experiment_name: str, configs: list[dict[str, Any]], device: str = "auto",
    desc: str | None = None,
) -> pd.DataFrame:
    """Records for every config, training (and recording) only those not yet in the store."""
    experiment = experiments.get(experiment_name)
    keyed = [(store.config_key(experiment.name, experiment.version, c), c) for c in configs]
    todo = [(k, c) for k, c in keyed if not store.record_path(chapter, k).exists()]
    prepared: dict[Any, Any] = {}
    bar = tqdm(todo, desc=desc or f"{chapter}: training", unit="run", disable=not show_progress() or not todo)
    for key, config in bar:
        data_key = experiment.data_key(config)
        if data_key not in prepared:
            prepared[data_key] = experiment.prepare(config)
        store.write_record(chapter, run_one(experiment, config, prepared[data_key], device))
    recs = [store.read_record(store.record_path(chapter, k)) for k, _ in keyed]
    return store.to_frame(recs)
