"""lrgb-head: the runs: their configs, keys, training plan and records."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphrepro import catalog, cells, pages, precision, store
from graphrepro.chapters.lrgb_head.paper import (
    CHAPTER,
    FIDELITY_SEEDS,
    FIRST_FULL,
    GPS_STAGES,
    HEAD_STAGES,
    LONG_PAIR,
    STAGES,
    TRAINING_ORDER,
)
from graphrepro.data.availability import is_available
from graphrepro.experiments import lrgb
from graphrepro.grid import run_grid


def available() -> bool:
    """Whether Peptides-func's files can be had."""
    return is_available("peptides_func")


def config(params: dict[str, Any], model: str, stage: str, seed: int, epochs: int | None = None) -> dict[str, Any]:
    """One run: the stage's base configuration of ``model`` (GPS: its ``GPS_STAGES``), its changes, and the
    profile's reductions. At the papers' epochs, ``FIRST_FULL`` trains in fp32 with today's step; every other
    run takes ``paper_setting``'s precision and step, and one of an LRGB configuration stops by the stated rule
    (``lrgb.STOP_AT_MIN_LR``) once ``stopping_check`` says the rule applies."""
    base, changes = ("tuned", GPS_STAGES[stage]) if model == lrgb.GPS else STAGES[stage]
    epochs = params["epochs"] if epochs is None else epochs
    fields: dict[str, Any] = {**changes, "train_graphs": params["train_graphs"], "eval_graphs": params["eval_graphs"],
                              "precision": params["precision"]}
    if not epochs and (model, stage, seed) == FIRST_FULL:
        fields["precision"] = precision.FLOAT32
    elif not epochs:
        fields.update(paper_setting(params))
        if base == "lrgb" and (stopping_check(params) or {}).get("applies"):
            fields["stop_at_min_lr"] = lrgb.STOP_AT_MIN_LR
    if epochs:
        fields["epochs"] = epochs
        if base == "tuned":  # the same shape in fewer epochs: warm-up 2% of training, stepped every batch
            full = lrgb.BASES["tuned"]
            fields.update(warmup_epochs=full["warmup_epochs"] * epochs / full["epochs"], schedule_per_batch=True)
    return lrgb.make_config(model, base, seed, **fields)


def paper_setting(params: dict[str, Any]) -> dict[str, str]:
    """The precision and step of the papers'-budget runs after ``FIRST_FULL``: bf16 where the fidelity check
    passed, fp32 with the fast step where it failed, and the profile's precision until it is decided."""
    passed = bf16_passes(params)
    if passed is None:
        return {"precision": params["precision"]}
    return {"precision": precision.BFLOAT16} if passed else {"precision": precision.FLOAT32, "step": "fast"}


def paper_setting_note(params: dict[str, Any]) -> str:
    """``paper_setting`` in words, for the page."""
    passed = bf16_passes(params)
    if passed is None:
        return f"in {params['precision']}, the profile's precision, because the check is not yet decided"
    return "in bf16, because the check passed" if passed else "in fp32 with the fast step, because the check failed"


def bf16_passes(params: dict[str, Any]) -> bool | None:
    """The fidelity check's outcome from the records (``fidelity_table``): True when every stage is within, False
    when one is not, None until every run of it is recorded. A profile that trains no longer pair (``paper``)
    reads the standard profile's check."""
    long_epochs = params["long_epochs"] or pages.resolve(CHAPTER, "standard")["long_epochs"]
    return _bf16_passes(json.dumps({**params, "long_epochs": long_epochs}, sort_keys=True), _store_stamp())


def _store_stamp() -> tuple[str, int]:
    """The chapter's store and when it last changed (a record added or removed), for caches of what records decide."""
    folder = store.record_path(CHAPTER, "x").parent
    return str(folder), folder.stat().st_mtime_ns if folder.exists() else 0


@functools.lru_cache(maxsize=8)
def _bf16_passes(check: str, stamp: tuple[str, int]) -> bool | None:
    """``bf16_passes`` for one set of parameters (JSON) and one state of the store."""
    params = json.loads(check)
    within = [row["within"] for row in fidelity_check(fidelity_runs(params), params)]
    return None if not within or None in within else all(within)


def stopping_check(params: dict[str, Any]) -> dict[str, Any] | None:
    """The stopping rule checked on ``FIRST_FULL``'s record at 500 epochs: its best validation epoch, the first
    epoch at the minimum rate (None if never), and whether the rule applies (the best came first); None until
    that run is recorded."""
    model, stage, seed = FIRST_FULL
    path = store.record_path(CHAPTER, key(config({**params, "epochs": 0}, model, stage, seed)))
    return _check_rule(str(path), path.stat().st_mtime_ns) if path.exists() else None


def stopping_note(params: dict[str, Any]) -> str:
    """``stopping_check`` in words, for the page."""
    check, rule = stopping_check(params), (f"once their rate is at {lrgb.PLATEAU['min_lr']:g} and validation AP has not "
                                           f"improved for {lrgb.STOP_AT_MIN_LR} epochs")
    if check is None:
        return ("is not yet checked: the first GCN run of LRGB's configuration at 500 epochs (linear head, seed 0) is not "
                "recorded, so every LRGB-configuration run trains all 500 epochs")
    best, first = check["best epoch"] + 1, check["first epoch at the minimum rate"]
    reached = "never reached the minimum rate" if first is None else f"reached the minimum rate at epoch {first + 1}"
    if check["applies"]:
        return (f"applies: that run's best validation epoch was {best}, and it {reached}; the other LRGB-configuration "
                f"runs stop {rule}, and each record keeps the epochs it ran")
    return f"does not apply: that run's best validation epoch was {best}, and it {reached}; every LRGB run trains all 500 epochs"


@functools.lru_cache(maxsize=4)
def _check_rule(path: str, mtime_ns: int) -> dict[str, Any]:
    """``stopping_check`` on one record file as it is at ``mtime_ns`` (read once per process, not per config)."""
    curve = store.load_artefact(CHAPTER, store.read_record(Path(path)), "curve")
    best = int(np.argmax(curve["val_ap"]))
    at_min = np.flatnonzero(curve["lr"] <= lrgb.PLATEAU["min_lr"] * (1 + 1e-6))
    first_min = int(at_min[0]) if len(at_min) else None
    return {"best epoch": best, "first epoch at the minimum rate": first_min,
            "applies": first_min is not None and best < first_min}


def reduction_note(params: dict[str, Any]) -> str:
    """The profile's reductions in words, stated beside every table of ours."""
    parts = []
    if params["epochs"]:
        parts.append(f"{params['epochs']} epochs instead of 500 (LRGB) / 250 (tuned), the tuned warm-up and cosine "
                     "schedule compressed to them")
    if params["train_graphs"] or params["eval_graphs"]:
        parts.append(f"the first {params['train_graphs'] or 10_873} training and {params['eval_graphs'] or 2_331} "
                     "validation/test graphs")
    parts.append(f"{params['seeds']} seed(s) instead of 4")
    return "; ".join(parts)


def table_cells(params: dict[str, Any]) -> list[tuple[str, str]]:
    """(model, stage) of every cell the chapter shows."""
    gps = [(lrgb.GPS, s) for s in GPS_STAGES] if params["gps"] else []
    return [(m, s) for m in params["models"] for s in STAGES] + gps


PLAN_LABELS = ["part", "model", "stage", "precision", "seed"]


def plan(params: dict[str, Any]) -> pd.DataFrame:
    """Every run the chapter reads, each config built once: ``main`` (every cell at the profile's epochs),
    ``full`` (every cell at the papers' epochs), ``long`` (the longer GCN pair) and ``fidelity`` (that pair in
    both precisions); its labels and key (``cells.plan``). Empty while Peptides-func cannot be had."""
    rows = [(_labels(part, c, s), c) for part, at in (("main", params), ("full", full_params(params)))
            for m, s in table_cells(params) for seed in range(params["seeds"]) for c in [config(at, m, s, seed)]
            ] + [(_labels("long", c, s), c) for s, c in zip(LONG_PAIR[1], long_configs(params))] if available() else []
    return cells.plan(rows + _fidelity_rows(params), key, PLAN_LABELS)


def fidelity_plan(params: dict[str, Any]) -> pd.DataFrame:
    """``plan``'s ``fidelity`` part alone (``fidelity_check`` reads it while ``config`` decides the precision)."""
    return cells.plan(_fidelity_rows(params), key, PLAN_LABELS)


def _labels(part: str, config: dict[str, Any], stage: str) -> dict[str, Any]:
    return {"part": part, "model": config["model"], "stage": stage, "precision": precision.of(config), "seed": config["seed"]}


def main_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every model at every stage, every seed; GPS with and without its deeper head."""
    gnns = [config(params, m, s, seed) for m in params["models"] for s in STAGES for seed in range(params["seeds"])]
    return gnns + gps_configs(params)


def gps_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """GPS at each of its stages, every seed (none when the profile leaves GPS out)."""
    return [config(params, lrgb.GPS, s, seed) for s in GPS_STAGES for seed in range(params["seeds"])] if params["gps"] else []


def long_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The GCN pair trained for ``long_epochs`` (seed 0)."""
    model, stages = LONG_PAIR
    if not params["long_epochs"] or model not in params["models"]:
        return []
    return [config(params, model, s, 0, epochs=params["long_epochs"]) for s in stages]


def paper_epochs(model: str, stage: str) -> int:
    """The epochs the papers trained a stage for (LRGB's configurations 500, the tuned ones 250)."""
    base = "tuned" if model == lrgb.GPS else STAGES[stage][0]
    return lrgb.BASES[base]["epochs"]


def full_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` at the papers' epochs (the same graphs and seeds)."""
    return {**params, "epochs": 0}


def full_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The head ablation's and tuned GPS's runs at the papers' epochs, when the profile trains fewer: read where
    recorded, never trained by the page (`train lrgb-head --profile paper` trains them)."""
    if not params["epochs"]:
        return []
    full = full_params(params)
    cells = [(m, s) for m in params["models"] for s in HEAD_STAGES] + ([(lrgb.GPS, "tuned")] if params["gps"] else [])
    return [config(full, m, s, seed) for m, s in cells for seed in range(params["seeds"])]


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 4 run."""
    return lrgb.EXPERIMENT.key(config)


def chapter_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run the chapter shows."""
    return (main_configs(params) + long_configs(params)) if available() else []


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them (nothing is trained), each ``wall_s`` at
    least its curve's seconds: records written before resumed runs counted their earlier processes hold
    only the last process's time, while the curve holds every epoch's."""
    configs, keys = chapter_configs(params), chapter_keys(params)
    recs = [r for r in store.records(CHAPTER) if r["key"] in keys and catalog.is_current(r)]
    runs = store.to_frame(recs)
    if not len(runs):
        return configs, runs
    return configs, runs.assign(wall_s=np.maximum(runs.wall_s, [_curve_seconds(r) for r in recs]))


def _curve_seconds(record: dict[str, Any]) -> float:
    """Training and evaluation seconds summed over a run's learning curve (0 when it has none)."""
    curve = store.load_artefact(CHAPTER, record, "curve") if "curve" in record.get("artefacts", {}) else {}
    return float(np.sum(curve.get("train_s", 0.0)) + np.sum(curve.get("eval_s", 0.0)))


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part of the chapter lacks (``main`` or ``long``) and return its records."""
    configs = {"main": main_configs, "long": long_configs}[part](params) if available() else []
    desc = {"main": "Peptides-func head ablation", "long": "GCN pair, trained longer"}[part]
    return run_grid(CHAPTER, lrgb.EXPERIMENT.name, configs, params["device"], desc=desc) if configs else pd.DataFrame()


def stage_of(config: dict[str, Any]) -> str:
    """The stage a config belongs to."""
    if config["model"] == lrgb.GPS:
        own = lrgb.TUNED[lrgb.GPS]["head_layers"]
        return next(s for s, changes in GPS_STAGES.items() if changes.get("head_layers", own) == config["head_layers"])
    for stage, (base, changes) in STAGES.items():
        defaults = {"head_layers": lrgb.BASES[base]["head_layers"], "rwse": lrgb.BASES[base]["rwse"]}
        if config["base"] == base and all(config[k] == v for k, v in {**defaults, **changes}.items()):
            return stage
    return "other"


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read, the papers' budget's included (nothing is trained)."""
    return all_runs(chapter_records(params)[1], full_runs(params))


def all_runs(*frames: pd.DataFrame) -> pd.DataFrame:
    """Records of several reads as one frame, each run once."""
    frames = tuple(f for f in frames if len(f))
    return pd.concat(frames).drop_duplicates("key") if frames else pd.DataFrame()


def _recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's current records of ``configs`` (nothing is trained)."""
    keys = {key(c) for c in configs} if available() else set()
    return store.to_frame([r for r in store.records(CHAPTER) if r["key"] in keys and catalog.is_current(r)])


def full_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``full_configs`` (nothing is trained)."""
    return _recorded(full_configs(params))


def fidelity_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The longer GCN pair in fp32 and in bf16 mixed precision, ``FIDELITY_SEEDS`` seeds each: the check that
    decides whether bf16 may train the papers'-budget runs."""
    return [c for _, c in _fidelity_rows(params)]


def _fidelity_rows(params: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``fidelity_configs`` with their ``plan`` labels."""
    model, stages = LONG_PAIR
    if not params["long_epochs"] or model not in params["models"]:
        return []
    return [(_labels("fidelity", c, s), c) for p in precision.CHOICES for s in stages for seed in range(FIDELITY_SEEDS)
            for c in [config({**params, "precision": p}, model, s, seed, epochs=params["long_epochs"])]]


def fidelity_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``fidelity_configs`` (nothing is trained)."""
    return _recorded(fidelity_configs(params))


def fidelity_check(runs: pd.DataFrame, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Per stage of the longer GCN pair: test AP × 100 in fp32 and in bf16 as (mean, std, runs) over seeds, the
    difference allowed (fp32's seed spread or the tolerance, whichever is larger), and whether bf16 is within it
    (None until every run of the stage is recorded)."""
    found = cells.stats(fidelity_plan(params), runs, ["stage", "precision"], "test_ap")
    rows = []
    for stage in dict.fromkeys(found.index.get_level_values("stage")):
        stats = {p: tuple(found.loc[(stage, p), ["mean", "std", "n"]]) for p in precision.CHOICES}
        stats = {p: (float(m), float(sd), int(n)) for p, (m, sd, n) in stats.items()}
        (fm, fs, fn), (bm, _, bn) = stats[precision.FLOAT32], stats[precision.BFLOAT16]
        allowed = max(params["tolerance"], 0.0 if math.isnan(fs) else fs)
        complete = fn == bn == FIDELITY_SEEDS
        rows.append({"stage": stage, **stats, "allowed": allowed, "within": abs(bm - fm) <= allowed if complete else None})
    return rows


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's runs for background training: the longer GCN pair first (its curve says whether the
    budget settles the order), its bf16 fidelity check where the CPU has bf16, at the papers' epochs
    ``FIRST_FULL`` on its own, then the cells in ``TRAINING_ORDER``, the other stages across models, and GPS.
    Each grid makes its configs when it starts, so runs planned before ``FIRST_FULL`` was recorded still take
    the stopping rule it decides."""

    def grid(desc: str, configs: Callable[[], list[dict[str, Any]]]) -> tuple[str, Callable[[], Any]]:
        return desc, lambda: run_grid(CHAPTER, lrgb.EXPERIMENT.name, configs(), params["device"], desc=desc)

    def cells_of(model: str, stages: tuple[str, ...]) -> Callable[[], list[dict[str, Any]]]:
        return lambda: sorted((c for c in main_configs(params) if c["model"] == model and stage_of(c) in stages),
                              key=lambda c: (c["seed"], stages.index(stage_of(c))))

    def first() -> list[dict[str, Any]]:
        return [c for c in cells_of(FIRST_FULL[0], (FIRST_FULL[1],))() if c["seed"] == FIRST_FULL[2]]

    ordered = [(m, stages) for m, stages in TRAINING_ORDER if m in params["models"]]
    covered = {(m, s) for m, stages in ordered for s in stages}
    others = [(m, (s,)) for s in STAGES for m in params["models"] if (m, s) not in covered]
    fidelity = [grid("bf16 fidelity: the longer GCN pair in both precisions", functools.partial(fidelity_configs, params))] if (
        precision.unavailable(precision.BFLOAT16) is None) else []
    reference = [grid("the first GCN run at LRGB's 500 epochs (it checks the stopping rule)", first)] if not params["epochs"] else []
    return ([grid("GCN pair, trained longer", functools.partial(long_configs, params))] + fidelity + reference
            + [grid(f"{m}: {', '.join(stages)}", cells_of(m, stages)) for m, stages in ordered + others]
            + [grid("GPS", functools.partial(gps_configs, params))])
