"""Grids of runs: train what the store lacks, reuse what it has, one progress bar per grid."""

from __future__ import annotations

import contextlib
import os
import resource
import time
import warnings
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import torch

from graphrepro import catalog, experiments, paths, progress, store
from graphrepro.environment import run_environment
from graphrepro.train import release_freed_memory, resolve_device

WORKERS = "GRAPHREPRO_WORKERS"
SCHEDULER = "GRAPHREPRO_SCHEDULER"  # a Dask scheduler's address: grids fan out over its cluster
SETTINGS_PREFIX = "GRAPHREPRO_"  # the environment variables a worker takes from the process that fans out
T = TypeVar("T")


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


def reset_peak_memory() -> bool:
    """Start this process's peak resident memory afresh from what it holds now (Linux: ``/proc/self/clear_refs``),
    so a batch records its own peak, not that of what the process trained before; False where that is refused."""
    release_freed_memory()
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def run_batch(experiment: experiments.Experiment, configs: list[dict[str, Any]], data: Any, device: str = "auto",
              threads: int | None = None) -> list[dict[str, Any]]:
    """Train configs that differ only in their seed together, on the experiment's thread count unless
    ``threads`` says otherwise; one full record (not yet written) each."""
    dev = resolve_device(device)
    reset_peak_memory()
    with intra_op_threads(experiment.threads if threads is None else threads):
        start = time.perf_counter()
        metrics = experiment.train(data, configs, dev)
        batch_s = time.perf_counter() - start
        environment = run_environment(dev)  # records the thread count the run used
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # this batch's peak (see reset_peak_memory)
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return [
        {
            "key": experiment.key(config),
            "experiment": experiment.name,
            "version": experiment.version,
            "config": config,
            "metrics": {k: v for k, v in m.items() if k != "resumed_s"},
            # the seeds of this setting trained together, and every run of the batch in training order: the
            # batch's shapes can move a member's numbers in the last bits, so verify re-trains the same batch
            "members": [c["seed"] for c in configs if experiments.batch_key(c) == experiments.batch_key(config)],
            "batch": [experiment.key(c) for c in configs],
            # this run's share of the batch, plus what earlier processes trained when it resumed from a checkpoint
            "wall_s": round(batch_s / len(configs) + m.get("resumed_s", 0.0), 3),
            "batch_wall_s": round(batch_s, 3),  # this process only
            **({"resumed_s": round(m["resumed_s"], 3)} if m.get("resumed_s") else {}),
            "peak_rss_mb": round(peak_mb, 1),
            "created": created,
            **environment,
        }
        for config, m in zip(configs, metrics)
    ]


def batches(configs: list[dict[str, Any]], experiment: experiments.Experiment, max_members: int) -> list[list[dict[str, Any]]]:
    """Group configs that share data and the experiment's batch key (by default: differ only in their
    seed), at most ``max_members`` per batch, the groups in the order of their first configs; one config per
    batch, in the given order, when the experiment does not stack members."""
    if not experiment.stacks:
        return [[config] for config in configs]
    groups: dict[Any, list[dict[str, Any]]] = {}
    for config in configs:
        groups.setdefault((experiment.data_key(config), experiment.batch_of(config)), []).append(config)
    return [group[i : i + max_members] for group in groups.values() for i in range(0, len(group), max_members)]


def resume_first(configs: list[dict[str, Any]], experiment: experiments.Experiment) -> list[dict[str, Any]]:
    """``configs`` with the runs under way here (a checkpoint holds some of their epochs) first, each part in
    the given order: a run hours into training lands before a new one starts, and less is at stake if the
    machine is lost."""
    if experiment.checkpointed is None:
        return configs
    return sorted(configs, key=lambda config: experiment.checkpointed(config) == 0)


def default_workers() -> int:
    """Worker processes for a grid: ``GRAPHREPRO_WORKERS`` (``run --workers N`` sets it), else one per core."""
    return max(1, int(os.environ.get(WORKERS, os.cpu_count() or 1)))


def machine_mb() -> float:
    """This machine's memory in MB."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20


def beyond_memory(configs: list[tuple[experiments.Experiment, dict[str, Any]]]) -> list[tuple[dict[str, Any], float]]:
    """The runs that cannot train on this machine, each with the memory (MB) it cannot do without (its experiment's
    ``least_mb``), more than the machine has."""
    total = machine_mb()
    needs = [(config, experiment.least_mb(config)) for experiment, config in configs if experiment.least_mb]
    return [(config, mb) for config, mb in needs if mb > total]


def workers_within_memory(peak_mb: float, workers: int | None = None, share: float = 0.8) -> int:
    """At most ``workers``, and no more than ``share`` of the machine's memory divided by a run's peak."""
    return max(1, min(default_workers() if workers is None else workers, int(share * machine_mb() // max(peak_mb, 1.0))))


def _train_and_record(chapter: str, experiment_name: str, batch: list[dict[str, Any]], device: str,
                      prepared: dict[Any, Any]) -> int:
    """Train one batch and write its records (artefacts first, so a record never points to nothing); members
    recorded since the grid began (by another process sharing the store) are not trained again."""
    experiment = catalog.experiment(experiment_name)
    done = len(batch)
    batch = [c for c in batch if not store.record_path(chapter, experiment.key(c)).exists()]
    if not batch:
        return done
    data_key = experiment.data_key(batch[0])
    if data_key not in prepared:
        prepared[data_key] = experiment.prepare(batch[0])
    for record in run_batch(experiment, batch, prepared[data_key], device):
        store.write_trained(chapter, record)
    return done


def fan_out(calls: list[Callable[[], T]], workers: int) -> Iterator[T]:
    """The results of ``calls`` as each finishes: one after another in this process when ``workers`` is 1,
    else over ``workers`` processes through joblib: its loky backend on this machine, or Dask's on the
    cluster whose scheduler ``GRAPHREPRO_SCHEDULER`` names (workers there see this process's settings)."""
    if workers <= 1 or len(calls) <= 1:
        yield from (call() for call in calls)
        return
    from joblib import Parallel, delayed  # optional executor, only when a grid fans out

    settings = {name: value for name, value in os.environ.items() if name.startswith(SETTINGS_PREFIX)}
    with warnings.catch_warnings(), _backend(os.environ.get(SCHEDULER)):
        # loky restarts a worker whose memory grew by 300 MB since its first job (here: the prepared data it
        # keeps for its next batches) and warns; the job goes to another worker, nothing is lost
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor")
        yield from Parallel(n_jobs=workers, return_as="generator_unordered")(
            delayed(_with_settings)(settings, call) for call in calls)


@contextlib.contextmanager
def _backend(scheduler: str | None) -> Iterator[None]:
    """joblib's default backend (loky), or Dask's connected to ``scheduler`` (``tcp://host:8786``)."""
    if not scheduler:
        yield
        return
    try:
        from dask.distributed import Client  # optional: only with a Dask scheduler
    except ImportError as error:
        raise RuntimeError(f"{SCHEDULER} is set but Dask is not installed: pip install -e '.[cluster]'") from error
    from joblib import parallel_config  # optional executor, only when a grid fans out

    with Client(scheduler), parallel_config(backend="dask", wait_for_workers_timeout=60):
        yield


def _with_settings(settings: dict[str, str], call: Callable[[], T]) -> T:
    """``call()`` under the caller's ``GRAPHREPRO_*`` settings, on one worker (a job never fans out again):
    joblib reuses its workers, and one started for an earlier grid would otherwise write to that grid's
    results folder."""
    for name in [n for n in os.environ if n.startswith(SETTINGS_PREFIX) and n not in settings]:
        del os.environ[name]
    os.environ.update(settings)
    os.environ[WORKERS] = "1"
    os.environ.pop(SCHEDULER, None)
    return call()


_WORKER_DATA: dict[Any, Any] = {}  # a worker process's cache of prepared data, reused by its next batches


def _in_worker(chapter: str, experiment_name: str, batch: list[dict[str, Any]], device: str) -> int:
    return _train_and_record(chapter, experiment_name, batch, device, _WORKER_DATA)


def run_grid(
    chapter: str, experiment_name: str, configs: list[dict[str, Any]], device: str = "auto",
    desc: str | None = None, max_members: int = 10, show: bool = True, workers: int | None = None,
) -> pd.DataFrame:
    """Records for every config, training (and recording) only those not yet in the store; configs that
    differ only in their seed train together as one stacked model of up to ``max_members`` members.
    Runs under way here (``resume_first``) train first, then the rest in the given order. Independent
    batches fan out over ``workers`` processes (default ``default_workers()``; one when the grid has a
    single batch, trains on a GPU, or the experiment wants several threads; fewer when the experiment's
    expected peak memory says more would not fit). ``show`` draws the grid's progress bar (a caller with
    its own bar turns it off)."""
    experiment = catalog.experiment(experiment_name)
    keys = [experiment.key(c) for c in configs]
    missing = {k for k in keys if not store.record_path(chapter, k).exists()}
    todo = [c for k, c in zip(keys, configs) if k in missing]
    if todo:
        folder = paths.require_writable(store.record_path(chapter, "x").parent)  # before training, not after
        paths.remove_abandoned_temporaries(folder)
    groups = batches(resume_first(todo, experiment), experiment, max_members)
    workers = min(default_workers() if workers is None else workers, len(groups))
    if experiment.threads > 1 or resolve_device(device).type == "cuda":  # one GPU, one process
        workers = 1
    elif experiment.peak_mb and todo:  # no more processes than the largest expected run fits in memory
        workers = workers_within_memory(max(experiment.peak_mb(c) for c in todo), workers)
    if workers <= 1:
        prepared: dict[Any, Any] = {}
        calls = [partial(_train_and_record, chapter, experiment_name, batch, device, prepared) for batch in groups]
    else:
        calls = [partial(_in_worker, chapter, experiment_name, batch, device) for batch in groups]
    bar = progress.grid_bar(desc or chapter, len(todo), len(set(keys) - missing)) if show else contextlib.nullcontext(lambda n: None)
    with bar as update:
        for done in fan_out(calls, workers):
            update(done)
    return store.to_frame([store.read_record(store.record_path(chapter, k)) for k in keys])
