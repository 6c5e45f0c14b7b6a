"""Grids of runs: train what the store lacks, reuse what it has, one progress bar per grid."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pandas as pd
import torch

from graphrepro import experiments, paths, progress, store
from graphrepro.environment import run_environment
from graphrepro.train import resolve_device


@contextlib.contextmanager
def intra_op_threads(threads: int = 1) -> Iterator[None]:
    """Train on ``threads`` intra-op threads (one by default: results then do not depend on how many
    members share a batch, since a reduction split over threads sums in another order, and separate
    grids can share the cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_batch(experiment: experiments.Experiment, configs: list[dict[str, Any]], data: Any, device: str = "auto",
              threads: int | None = None) -> list[dict[str, Any]]:
    """Train configs that differ only in their seed together, on the experiment's thread count unless
    ``threads`` says otherwise; one full record (not yet written) each."""
    dev = resolve_device(device)
    with intra_op_threads(experiment.threads if threads is None else threads):
        start = time.perf_counter()
        metrics = experiment.train(data, configs, dev)
        batch_s = time.perf_counter() - start
        environment = run_environment(dev)  # records the thread count the run used
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return [
        {
            "key": store.config_key(experiment.name, experiment.version, config),
            "experiment": experiment.name,
            "version": experiment.version,
            "config": config,
            "metrics": m,
            "members": [c["seed"] for c in configs],  # trained together; verify re-trains the same batch
            "wall_s": round(batch_s / len(configs), 3),  # this run's share of the batch
            "batch_wall_s": round(batch_s, 3),
            "created": created,
            **environment,
        }
        for config, m in zip(configs, metrics)
    ]


def batches(configs: list[dict[str, Any]], experiment: experiments.Experiment, max_members: int) -> list[list[dict[str, Any]]]:
    """Group configs that share data and differ only in their seed, at most ``max_members`` per batch
    (one per batch when the experiment does not stack members)."""
    max_members = max_members if experiment.stacks else 1
    groups: dict[Any, list[dict[str, Any]]] = {}
    for config in configs:
        groups.setdefault((experiment.data_key(config), experiments.batch_key(config)), []).append(config)
    return [group[i : i + max_members] for group in groups.values() for i in range(0, len(group), max_members)]


def run_grid(
    chapter: str, experiment_name: str, configs: list[dict[str, Any]], device: str = "auto",
    desc: str | None = None, max_members: int = 10, show: bool = True,
) -> pd.DataFrame:
    """Records for every config, training (and recording) only those not yet in the store; configs that
    differ only in their seed train together as one stacked model of up to ``max_members`` members.
    ``show`` draws the grid's progress bar (a caller with its own bar turns it off)."""
    experiment = experiments.get(experiment_name)
    keys = [store.config_key(experiment.name, experiment.version, c) for c in configs]
    missing = {k for k in keys if not store.record_path(chapter, k).exists()}
    todo = [c for k, c in zip(keys, configs) if k in missing]
    if todo:
        paths.require_writable(store.record_path(chapter, "x").parent)  # before training, not after
    prepared: dict[Any, Any] = {}
    bar = progress.grid_bar(desc or chapter, len(todo), len(set(keys) - missing)) if show else contextlib.nullcontext(lambda n: None)
    with bar as update:
        for batch in batches(todo, experiment, max_members):
            data_key = experiment.data_key(batch[0])
            if data_key not in prepared:
                prepared[data_key] = experiment.prepare(batch[0])
            for record in run_batch(experiment, batch, prepared[data_key], device):
                store.write_record(chapter, record)
            update(len(batch))
    return store.to_frame([store.read_record(store.record_path(chapter, k)) for k in keys])
