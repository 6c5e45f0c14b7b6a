"""Benchmarks that print figures: seconds per training run, and each chapter's wall time."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from collections.abc import Callable
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


def compare_seconds(label: str, baseline: tuple[str, Callable[[], Any]], ours: tuple[str, Callable[[], Any]],
                    repeats: int = 3) -> dict[str, Any]:
    """Median seconds of two ways to compute the same thing, alternated in one process, and their ratio."""
    times: dict[str, list[float]] = {baseline[0]: [], ours[0]: []}
    for _ in range(repeats + 1):  # the first round warms up and is not counted
        for name, work in (baseline, ours):
            start = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - start)
    median = {name: sorted(t[1:])[len(t[1:]) // 2] for name, t in times.items()}
    return {"run": label, **{f"s, {name}": m for name, m in median.items()}, "speedup": median[baseline[0]] / median[ours[0]]}


def batched_speedup(model: str, graph: Any, y: Any, split: dict[str, Any], sizes: tuple[int, ...] = (1, 8, 32, 64),
                    epochs: int = 50, hidden: int = 64) -> list[dict[str, Any]]:
    """Seconds per member-epoch of ``graphrepro.batched`` training ``size`` members one at a time and as one
    batch (lr, weight decay and dropout rates differing between members), timed in one process."""
    from graphrepro import batched

    rows = []
    for size in sizes:
        configs = [{"lr": 0.01 / (1 + i % 4), "weight_decay": 5e-4 * (i % 3), "dropout": 0.2 + 0.2 * (i % 4),
                    "input_dropout": 0.2 + 0.2 * ((i + 1) % 4), "eps": 0.3} for i in range(size)]

        def one(chosen: list[int]) -> float:
            start = time.perf_counter()
            batched.train(batched.MODELS[model], graph, y, split, batched.hyper_tensors([configs[i] for i in chosen]),
                          chosen, hidden, epochs, patience=epochs + 1)
            return time.perf_counter() - start

        alone = sum(one([i]) for i in range(size))
        together = one(list(range(size)))
        rows.append({"run": f"{model}, {size} members, {epochs} epochs", "members": size,
                     "ms per member-epoch, one at a time": 1000 * alone / (size * epochs),
                     "ms per member-epoch, batched": 1000 * together / (size * epochs), "speedup": alone / together})
    return rows


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
