"""lrgb-head: the chapter's runs: every cell at the profile's and the papers' epochs, the longer GCN pair, their
plan, training order and records."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from graphrepro import catalog, cells, precision, store
from graphrepro.chapters.lrgb_head import checks
from graphrepro.chapters.lrgb_head.paper import CHAPTER, FIRST_FULL, GPS_STAGES, HEAD_STAGES, LONG_PAIR, STAGES, TRAINING_ORDER
from graphrepro.chapters.lrgb_head.stages import PLAN_LABELS, available, full_params, key, labels, recorded, stage_config, stage_of
from graphrepro.experiments import lrgb
from graphrepro.grid import run_grid


def config(params: dict[str, Any], model: str, stage: str, seed: int, epochs: int | None = None) -> dict[str, Any]:
    """One run at ``epochs`` (default the profile's; 0 the papers'): ``stages.stage_config`` with, at the papers'
    epochs after ``FIRST_FULL``, what the records decide (``checks.papers_budget_fields``)."""
    epochs = params["epochs"] if epochs is None else epochs
    decided = checks.papers_budget_fields(params, model, stage) if not epochs and (model, stage, seed) != FIRST_FULL else {}
    return stage_config(params, model, stage, seed, epochs, **decided)


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


def plan(params: dict[str, Any]) -> pd.DataFrame:
    """Every run the chapter reads, each config built once: ``main`` (every cell at the profile's epochs),
    ``full`` (every cell at the papers' epochs), ``long`` (the longer GCN pair) and ``fidelity`` (that pair in
    both precisions); its labels and key (``cells.plan``). Empty while Peptides-func cannot be had."""
    rows = [(labels(part, c, s), c) for part, at in (("main", params), ("full", full_params(params)))
            for m, s in table_cells(params) for seed in range(params["seeds"]) for c in [config(at, m, s, seed)]
            ] + [(labels("long", c, s), c) for s, c in zip(LONG_PAIR[1], long_configs(params))] if available() else []
    return cells.plan(rows + checks.fidelity_rows(params), key, PLAN_LABELS)


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


def full_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The head ablation's and tuned GPS's runs at the papers' epochs, when the profile trains fewer: read where
    recorded, never trained by the page (`train lrgb-head --profile paper` trains them)."""
    if not params["epochs"]:
        return []
    full = full_params(params)
    cells = [(m, s) for m in params["models"] for s in HEAD_STAGES] + ([(lrgb.GPS, "tuned")] if params["gps"] else [])
    return [config(full, m, s, seed) for m, s in cells for seed in range(params["seeds"])]


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


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read, the papers' budget's included (nothing is trained)."""
    return all_runs(chapter_records(params)[1], full_runs(params))


def all_runs(*frames: pd.DataFrame) -> pd.DataFrame:
    """Records of several reads as one frame, each run once."""
    frames = tuple(f for f in frames if len(f))
    return pd.concat(frames).drop_duplicates("key") if frames else pd.DataFrame()


def full_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``full_configs`` (nothing is trained)."""
    return recorded(full_configs(params))


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
    fidelity = [grid("bf16 fidelity: the longer GCN pair in both precisions", functools.partial(checks.fidelity_configs, params))] if (
        precision.unavailable(precision.BFLOAT16) is None) else []
    reference = [grid("the first GCN run at LRGB's 500 epochs (it checks the stopping rule)", first)] if not params["epochs"] else []
    return ([grid("GCN pair, trained longer", functools.partial(long_configs, params))] + fidelity + reference
            + [grid(f"{m}: {', '.join(stages)}", cells_of(m, stages)) for m, stages in ordered + others]
            + [grid("GPS", functools.partial(gps_configs, params))])
