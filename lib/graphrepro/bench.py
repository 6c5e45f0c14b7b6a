"""Benchmarks that print figures: seconds per training run, and each chapter's wall time."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from graphrepro import experiments, pages, paths, store
from graphrepro.grid import batches, run_batch
from graphrepro.models import batched
from graphrepro.train import release_freed_memory


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
        "s per run, batched": together_s / len(configs) if experiment.stacks else None,
        "speedup": alone_s / together_s if experiment.stacks else None,  # an experiment that does not stack has no ratio
        "data preparation s": prepare_s,
    }


def compare_seconds(label: str, baseline: tuple[str, Callable[[], Any]], *others: tuple[str, Callable[[], Any]],
                    repeats: int = 3) -> dict[str, Any]:
    """Median seconds of several ways to compute the same thing, alternated in one process, and each one's
    speedup over ``baseline`` (``speedup`` when there is one other way, ``speedup, <name>`` for several)."""
    ways = (baseline, *others)
    times: dict[str, list[float]] = {name: [] for name, _ in ways}
    for _ in range(repeats + 1):  # the first round warms up and is not counted
        for name, work in ways:
            start = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - start)
    median = {name: sorted(t[1:])[len(t[1:]) // 2] for name, t in times.items()}
    ratios = {("speedup" if len(others) == 1 else f"speedup, {name}"): median[baseline[0]] / median[name] for name, _ in others}
    return {"run": label, **{f"s, {name}": m for name, m in median.items()}, **ratios}


def peak_growth_mb(work: Callable[[], Any]) -> float:
    """How far this process's resident memory rose above its level before ``work`` (MB, sampled every 5 ms),
    the heap's freed pages handed back first."""
    def resident() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    release_freed_memory()
    base, peak, done = resident(), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], resident())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        work()
    finally:
        done.set()
        sampler.join()
    return max(peak[0], resident()) / 2**20 - base / 2**20


def member_settings(size: int) -> list[dict[str, Any]]:
    """Settings of ``size`` batched members, their learning rate, weight decay and dropout rates differing."""
    return [{"lr": 0.01 / (1 + i % 4), "weight_decay": 5e-4 * (i % 3), "dropout": 0.2 + 0.2 * (i % 4),
             "input_dropout": 0.2 + 0.2 * ((i + 1) % 4), "eps": 0.3} for i in range(size)]


def batched_speedup(model: str, graph: Any, y: Any, split: dict[str, Any], sizes: tuple[int, ...] = (1, 8, 32, 64),
                    epochs: int = 50, hidden: int = 64) -> list[dict[str, Any]]:
    """Seconds per member-epoch of ``graphrepro.batched`` training ``size`` members one at a time and as one
    batch (lr, weight decay and dropout rates differing between members), timed in one process."""
    rows = []
    for size in sizes:
        configs = member_settings(size)

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
    params = pages.resolve(slug, profile)
    configs, runs = pages.chapter_module(slug, "configs").chapter_records(params)
    wanted = len(configs)
    result: dict[str, float | str] = {
        "runs in the profile": wanted,
        "runs recorded": len(runs),
        "training seconds (sum of records)": float(runs.wall_s.sum()) if len(runs) else 0.0,
    }
    if len(runs) < wanted:
        result["page execution"] = f"skipped: {wanted - len(runs)} runs are not recorded yet"
        return result
    from graphrepro import runner  # executing a page needs Jupyter; the other benchmarks do not

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runner.execute(slug, profile, output_dir=Path(tmp))
    result["page execution seconds (from records)"] = time.perf_counter() - start
    return result


def unrecorded_standard_runs() -> dict[str, int]:
    """Per chapter, how many runs of its ``standard`` profile have no committed record."""
    missing = {}
    for page in pages.chapter_pages():
        keys = pages.chapter_module(page.slug, "configs").chapter_keys(pages.resolve(page.slug, "standard"))
        missing[page.slug] = len(keys - (store.committed_keys(page.slug) or set()))
    return missing


def whole_book(targets: tuple[str, ...] = ("install", "book")) -> dict[str, float | str]:
    """Wall seconds of what a reader does first, on a fresh clone of the committed tree with an empty data
    cache: each ``make`` target in turn. ``book`` is skipped, saying why, while a chapter lacks committed
    ``standard`` records (it would train them first)."""
    missing = {slug: n for slug, n in unrecorded_standard_runs().items() if n}
    times: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "graphrepro"
        subprocess.run(["git", "clone", "-q", str(paths.REPO_ROOT), str(clone)], check=True)
        env = {**os.environ, "GRAPHREPRO_DATA": str(Path(tmp) / "cache"),
               "GRAPHREPRO_MIRROR": os.environ.get("GRAPHREPRO_MIRROR", str(paths.REPO_ROOT.parent / "shared" / "data"))}
        env.pop("GRAPHREPRO_RESULTS", None)
        for target in targets:
            if target == "book" and missing:
                times["make book"] = "skipped: runs without committed records would train first (" + ", ".join(
                    f"{slug} {n}" for slug, n in missing.items()) + ")"
                continue
            start = time.perf_counter()
            subprocess.run(["make", target], cwd=clone, env=env, check=True, stdout=subprocess.DEVNULL)
            times[f"make {target}"] = time.perf_counter() - start
    return times


def chapter_bench(slug: str, seeds: int) -> pd.DataFrame:
    """The chapter's own timing runs (its ``bench``)."""
    return pd.DataFrame(pages.chapter_module(slug, "benchmarks").bench(seeds))


RESULTS = "bench"  # under results/: <chapter>/<cpu kind>.json per `bench --chapter`, which the Cost page reads


def save_chapter_bench(slug: str, table: pd.DataFrame, seeds: int) -> Path:
    """Keep a chapter's bench table, with where, when and beside how much other work it ran, as
    ``results/bench/<slug>/<cpu kind>.json``: the last one of each CPU kind (to commit: the Cost page's "What
    made it cheaper" reads them)."""
    from graphrepro.environment import cpu_kind, measured_on

    report = {"chapter": slug, **measured_on(), "seeds": seeds, "rows": json.loads(table.to_json(orient="records"))}
    path = paths.results_dir() / RESULTS / slug / f"{cpu_kind(report['cpu']).lower().replace(' ', '-')}.json"
    paths.write_atomically(path, lambda tmp: tmp.write_text(json.dumps(report, indent=1) + "\n"))
    return path


def saved_benches() -> list[dict[str, Any]]:
    """Every chapter's kept bench tables (``save_chapter_bench``), in the book's chapter order, each chapter's by
    CPU kind."""
    folders = [paths.results_dir() / RESULTS / p.slug for p in pages.chapter_pages()]
    return [json.loads(f.read_text()) for folder in folders for f in sorted(folder.glob("*.json")) if ".partial." not in f.name]


def experiment_of(config: dict[str, Any], candidates: tuple[experiments.Experiment, ...]) -> experiments.Experiment:
    """The one of ``candidates`` whose ``make_config`` rebuilds ``config`` from its own fields."""
    for experiment in candidates:
        try:
            if experiment.make_config(**config) == config:
                return experiment
        except (TypeError, ValueError):
            continue
    raise ValueError(f"no experiment of {[e.name for e in candidates]} makes the config {config}")


Groups = dict[tuple[str, str, str], tuple[experiments.Experiment, list[dict[str, Any]]]]


def _label(experiment: experiments.Experiment, config: dict[str, Any]) -> tuple[str, str, str]:
    """A run's kind: (experiment, dataset, model), the model with the experiment's ``kind_fields`` ("GCN (tuned)")."""
    kind = ", ".join(str(config.get(f)) for f in experiment.kind_fields)
    return experiment.name, str(config.get("dataset", "")), str(config.get("model")) + (f" ({kind})" if kind else "")


def pending(slug: str, params: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The runs a chapter will train under ``params`` that its plan cannot list yet, by what they wait for, each as
    a config of its kind (its configs' ``pending``; none where it has none). A stand-in may be listed many times."""
    module = pages.chapter_module(slug, "configs")
    return module.pending(params) if hasattr(module, "pending") else {}


def probe_groups(slug: str, params: dict[str, Any], waiting: list[dict[str, Any]] | None = None) -> Groups:
    """The chapter's runs under ``params``, and ``waiting`` (by default its ``pending`` runs), grouped by kind
    (``_label``), each with its experiment."""
    groups: Groups = {}
    kinds: dict[int, tuple[tuple[str, str, str], experiments.Experiment]] = {}  # a stand-in listed many times is read once
    waiting = [c for configs in pending(slug, params).values() for c in configs] if waiting is None else waiting
    for config in pages.chapter_module(slug, "configs").chapter_records(params)[0] + waiting:
        if id(config) not in kinds:
            experiment = experiment_of(config, pages.experiments(slug))
            kinds[id(config)] = _label(experiment, config), experiment
        label, experiment = kinds[id(config)]
        groups.setdefault(label, (experiment, []))[1].append(config)
    return groups


def shared_differences(ours: list[dict[str, Any]], theirs: list[dict[str, Any]], ignore: set[str]) -> dict[str, tuple[Any, Any]]:
    """Settings on which two groups of configs each agree among themselves but differ from each other
    (a field missing from a config counts as None); fields in ``ignore`` aside."""
    def single(configs: list[dict[str, Any]], field: str) -> tuple[bool, Any]:
        values = {json.dumps(c.get(field), sort_keys=True) for c in configs}
        return len(values) == 1, configs[0].get(field)

    out = {}
    for field in sorted({f for c in ours + theirs for f in c} - ignore):
        (one, mine), (other, yours) = single(ours, field), single(theirs, field)
        if one and other and mine != yours:
            out[field] = (mine, yours)
    return out


def seconds_per_epoch(record: dict[str, Any], experiment: experiments.Experiment) -> float:
    """A record's wall time (set-up, evaluation and early stopping included; its share of a stacked batch) per
    epoch its config planned, so that times the planned epochs of a like run it gives that run's cost."""
    return record["wall_s"] / max(1, experiment.planned_epochs(record["config"])[1])


def kept_epoch_seconds(slug: str, config: dict[str, Any]) -> list[float]:
    """Seconds of one epoch of ``config`` in each of the chapter's kept benches that timed it (its benchmarks'
    ``kept_epoch_seconds``; none where the chapter's benchmarks time no whole run)."""
    module = pages.chapter_module(slug, "benchmarks")
    if not hasattr(module, "kept_epoch_seconds"):
        return []
    return [s for b in saved_benches() if b["chapter"] == slug if (s := module.kept_epoch_seconds(config, b["rows"])) is not None]


def _varying_fields(configs: list[dict[str, Any]]) -> set[str]:
    """Fields some of the configs have and others lack."""
    fields = [set(c) for c in configs]
    return set.union(*fields) - set.intersection(*fields) if fields else set()


ESTIMATE_COLUMNS = ("chapter", "experiment", "dataset", "model", "with", "runs", "epochs per run", "records", "from",
                    "s per planned epoch", "hours", "hours left", "status")  # ``recorded_estimate``'s, whichever row comes first


def recorded_estimate(slug: str, profile: str = "paper", overrides: dict[str, Any] | None = None) -> pd.DataFrame:
    """Hours a profile's runs (with ``overrides``, as `train -p` gives them) would take on the machine of the
    committed records, probing nothing:
    per kind of run (``_label``, and any optional settings only some of its runs carry, such as GMNN's EM loops
    on a GCN), the median recorded seconds per planned epoch times every planned epoch of the profile's runs
    (runs that stop early as the records did), and the hours left: the epochs of the profile's runs with no
    record yet, less what this machine's checkpoints hold. The seconds come from the kind's own records in the
    profile where some exist (``from``), else from the ``standard`` records of its kind. A kind with neither
    says so, unless it differs from a recorded kind only in the experiment's ``speed_fields`` (then that kind's
    records give an upper bound) or a kept bench timed one of its epochs (``kept_epoch_seconds``: set-up and
    evaluation not counted, a lower bound); one whose records all differ from the profile's runs in a setting
    (fewer negatives, a faster step) names it: its epochs may cost otherwise. Runs the plan cannot list yet
    (``pending``) are priced alike, count as left and say what they wait for; a kind that needs a gigabyte or
    more of memory (``least_mb``) says how much."""
    standard = pages.chapter_module(slug, "configs").chapter_keys(pages.resolve(slug, "standard"))
    records = store.records(slug)
    done = {r["key"] for r in records}
    params = pages.resolve(slug, profile, **(overrides or {}))
    recorded: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for record in records:
        if record["key"] in standard:
            recorded.setdefault(_label(experiment_of(record["config"], pages.experiments(slug)), record["config"]), []).append(record)
    waiting = pending(slug, params)
    waits = {id(c): reason for reason, configs in waiting.items() for c in configs}
    rows = []
    for label, (experiment, members) in probe_groups(slug, params, [c for configs in waiting.values() for c in configs]).items():
        field = experiment.planned_epochs(members[0])[0]
        optional = _varying_fields(members) | _varying_fields([r["config"] for r in recorded.get(label, [])])

        def variant(config: dict[str, Any]) -> frozenset[str]:
            return frozenset(optional & set(config))

        variants: dict[frozenset[str], list[dict[str, Any]]] = {}
        for config in members:
            variants.setdefault(variant(config), []).append(config)
        for extra, part in variants.items():
            times = collections.Counter(id(c) for c in part)  # a stand-in listed many times counts as many runs
            unique = list({id(c): c for c in part}.values())
            epochs = {id(c): experiment.planned_epochs(c)[1] for c in unique}
            keys = {id(c): experiment.key(c) for c in unique}
            row: dict[str, Any] = {"chapter": slug, "experiment": label[0], "dataset": label[1], "model": label[2],
                                   "with": ", ".join(sorted(extra)) or "–", "runs": len(part), "epochs per run": max(epochs.values())}
            known = set(keys.values())
            mine, source = [r for r in records if r["key"] in known], profile
            if not mine:
                mine, source = [r for r in recorded.get(label, []) if variant(r["config"]) == extra], "standard"
            slower = extra - set(experiment.speed_fields)
            if not mine and slower != extra:  # the kind without the settings that only speed it up: the same work, an upper bound
                mine = [r for r in recorded.get(label, []) if variant(r["config"]) == slower]
            waiting_words = "".join(f"waits for {w}; " for w in sorted({waits[i] for i in keys if i in waits}))
            least = max(experiment.least_mb(c) for c in unique) if experiment.least_mb else 0.0
            memory = f"; needs at least {least / 2**10:.0f} GB of memory" if least >= 2**10 else ""
            benched = [] if mine else kept_epoch_seconds(slug, part[0])
            if not mine and not benched:
                rows.append({**row, "status": waiting_words + "no standard record of this kind" + memory})
                continue
            if benched:
                per_epoch, source, status = float(pd.Series(benched).median()), "bench", "an epoch as benched (set-up and evaluation not counted)"
            else:
                per_epoch = float(pd.Series([seconds_per_epoch(r, experiment) for r in mine]).median())
                differs = shared_differences([r["config"] for r in mine], unique, {"seed", field})
                status = ("settings differ: " + "; ".join(f"{f} {a} here, {b} in {profile}" for f, (a, b) in differs.items())
                          if differs else "as recorded")

            def to_train(config: dict[str, Any]) -> int:  # a pending run's every epoch; a listed one's not recorded or checkpointed
                if id(config) in waits:
                    return epochs[id(config)]
                if keys[id(config)] in done:
                    return 0
                return max(0, epochs[id(config)] - (experiment.checkpointed(config) if experiment.checkpointed else 0))

            left, total = sum(times[id(c)] * to_train(c) for c in unique), sum(times[i] * epochs[i] for i in epochs)
            rows.append({**row, **({"records": len(mine)} if mine else {}), "from": source, "s per planned epoch": per_epoch,
                         "hours": per_epoch * total / 3600, "hours left": per_epoch * left / 3600, "status": waiting_words + status + memory})
    frame = pd.DataFrame(rows)
    return frame[[c for c in ESTIMATE_COLUMNS if c in frame]]


def probe_costs(experiment: experiments.Experiment, batch: list[dict[str, Any]], data: Any, device: str,
                probe_epochs: int) -> tuple[float, float]:
    """Seconds per epoch and per run besides its epochs of one member of ``batch``: it trains for
    ``probe_epochs`` and four times as many, and the difference is the epochs' cost."""
    field, epochs = experiment.planned_epochs(batch[0])
    timed = []
    for length in (probe_epochs, 4 * probe_epochs):
        probe = [{**c, field: min(epochs, length), **({"min_epochs": 0} if "min_epochs" in c else {})} for c in batch]
        out = run_batch(experiment, probe, data, device)
        member_epochs = sum(max(1, r["metrics"].get("epochs_run", length)) for r in out)
        timed.append((out[0]["batch_wall_s"] / len(out), member_epochs / len(out)))
    (short_s, short_epochs), (long_s, long_epochs) = timed
    per_epoch = (long_s - short_s) / max(long_epochs - short_epochs, 1e-9)
    per_run = short_s - per_epoch * short_epochs
    if per_epoch <= 0 or per_run < 0:  # too noisy to separate: all of the longer probe counted as epochs
        return long_s / long_epochs, 0.0
    return per_epoch, per_run


def profile_estimate(slug: str, profile: str = "paper", device: str = "cuda", probe_epochs: int = 3,
                     budget_s: float = 120.0, max_members: int = 10, overrides: dict[str, Any] | None = None) -> pd.DataFrame:
    """Hours a profile's runs (with ``overrides``, as `train -p` gives them) would take on ``device``: one batch (as a grid would stack it) per (experiment,
    dataset, model) probed for its costs (``probe_costs``), times every run's planned epochs (early stopping
    makes it an upper bound). Groups left when ``budget_s`` is spent, or whose probe fails, say so."""
    params = pages.resolve(slug, profile, **{**(overrides or {}), "device": device})
    rows, prepared, start = [], {}, time.perf_counter()
    for (name, data_label, model), (experiment, members) in probe_groups(slug, params).items():
        epochs = experiment.planned_epochs(members[0])[1]
        row: dict[str, Any] = {"chapter": slug, "experiment": name, "dataset": data_label, "model": model, "runs": len(members),
                               "epochs per run": epochs}
        if rows and time.perf_counter() - start > budget_s:  # the first group is always probed
            rows.append({**row, "status": "not probed: time budget spent"})
            continue
        batch = batches(members, experiment, max_members)[0]
        try:
            data_id = (name, experiment.data_key(batch[0]))
            if data_id not in prepared:
                prepared[data_id] = experiment.prepare(batch[0])
            per_epoch, per_run = probe_costs(experiment, batch, prepared[data_id], device, probe_epochs)
        except Exception as error:  # noqa: BLE001 - a probe that fails is reported, the others still run
            rows.append({**row, "status": f"probe failed: {type(error).__name__}: {error}"[:200]})
            continue
        rows.append({**row, "probe members": len(batch), "s per epoch": per_epoch, "s per run besides epochs": per_run,
                     "hours (upper bound)": (per_run + per_epoch * epochs) * len(members) / 3600, "status": "probed"})
    return pd.DataFrame(rows)


def top_operators(work: Callable[[], Any], top: int = 8) -> list[tuple[str, float, float]]:
    """Where ``work``'s time goes: torch's profiler over one call, the ``top`` operators by their own CPU time as
    (name, share of the whole, seconds)."""
    from torch.profiler import ProfilerActivity, profile  # only profiling needs it

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        work()
    events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    total_us = sum(e.self_cpu_time_total for e in events)
    return [(e.key, e.self_cpu_time_total / total_us, e.self_cpu_time_total / 1e6) for e in events[:top]]


def batched_profile(model: str, graph: Any, y: Any, split: dict[str, Any], members: int = 32, epochs: int = 20,
                    hidden: int = 64, top: int = 8) -> list[dict[str, Any]]:
    """Where a batched member-epoch goes: the ``top`` operators (``top_operators``) over ``members`` trained
    together, each as a share of the whole and in ms per member-epoch."""
    ops = top_operators(lambda: batched.train(batched.MODELS[model], graph, y, split, batched.hyper_tensors(member_settings(members)),
                                              list(range(members)), hidden, epochs, patience=epochs + 1), top)
    return [{"run": f"{model}, {members} members: where the time goes", "operator": name, "share of time": share,
             "ms per member-epoch": 1000 * seconds / (members * epochs)} for name, share, seconds in ops]
