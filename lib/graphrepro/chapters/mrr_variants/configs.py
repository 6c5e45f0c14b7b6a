"""mrr-variants: the runs: their configs, keys, training plan and records."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import catalog, store
from graphrepro.chapters.mrr_variants.paper import CHAPTER, KG_LABELS, LARGE_KGS
from graphrepro.data.availability import is_available
from graphrepro.experiments import Experiment, kg, linkpred
from graphrepro.grid import run_grid


def lp_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every encoder on every graph, every seed."""
    return [linkpred.make_config(g, m, s, max_epochs=params["lp_epochs"], precision=params["precision"]) for g in params["graphs"] for m in params["encoders"]
            for s in range(params["seeds"])]


def kg_configs_on(params: dict[str, Any], datasets: list[str], fast: bool = False) -> list[dict[str, Any]]:
    """``kg_configs`` on ``datasets`` (none waits for a check), on the fast path (``kg.fast_fields``) where ``fast``."""
    out = []
    for dataset in datasets:
        for model in params["kg_models"]:
            if dataset in LARGE_KGS and model not in params["large_kg_models"]:
                continue
            base = kg.make_config(dataset, model, 0)
            if dataset in LARGE_KGS:
                epochs = params["large_kg_epochs"] or None
            elif base["source"] == kg.DEFAULTS:
                epochs = (model == "TuckER" and params["tucker_epochs"]) or params["kg_epochs"] or kg.DEFAULT_EPOCHS
            else:
                epochs = params["kg_epochs"] or None
            cap = params["negatives_cap"] if dataset in LARGE_KGS else 0
            fewer = {"negatives": cap} if cap and kg.own_negatives(base) > cap else {}
            targets = {"ce_targets": kg.MULTI_HOT} if kg.lcwa_cross_entropy(base) else {}
            path = kg.fast_fields(base) if fast else {}
            out += [kg.make_config(dataset, model, s, epochs=epochs, **fewer, **targets, **path) for s in range(params["kg_seeds"])]
    return out


def kg_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every model on every knowledge graph that can be had, every seed: Hoyt et al.'s configuration where they
    trained one (its own epochs unless the profile sets fewer; LCWA's cross-entropy as their pykeen computed it,
    ``kg.MULTI_HOT``), pykeen's defaults elsewhere. A model's runs on the large graphs take the fast path
    (``kg.fast_fields``) once ``fast_passes`` for it, pykeen's where it failed, and wait while it is undecided."""
    small = kg_configs_on(params, [d for d in params["kgs"] if d not in LARGE_KGS])
    large = [d for d in params["kgs"] if d in LARGE_KGS and is_available(d)]
    paths = zip(kg_configs_on(params, large, fast=True), kg_configs_on(params, large))  # the same runs, in one order
    return small + [fast if passed else plain for fast, plain in paths if (passed := fast_passes(params, fast["model"])) is not None]


def pending(params: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Runs the chapter will train that ``kg_configs`` holds back, by what they wait for: a model's runs on the large
    graphs while the fast path's check is undecided for it, on the fast path (the one they take if it passes)."""
    large = [d for d in params["kgs"] if d in LARGE_KGS and is_available(d)]
    waiting = [c for c in kg_configs_on(params, large, fast=True) if fast_passes(params, c["model"]) is None]
    return {"the fast path's check": waiting} if waiting else {}


def fast_twins(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The fidelity check of the fast path, each run paired with its twin on pykeen's path (``kg.pykeens_path``): the
    small knowledge graphs' runs again on it, then ``borrowed_twins`` (none unless the profile trains the check)."""
    if not params["fast_check"]:
        return []
    return kg_configs_on(params, [d for d in params["kgs"] if d not in LARGE_KGS], fast=True) + borrowed_twins(params)


CHECK_GRAPHS = ("umls", "kinships", "nations")  # the small graph that borrows a large one's setting: the first in kgs


def borrowed_twins(params: dict[str, Any]) -> list[dict[str, Any]]:
    """A large graph's setting whose fast scorer (``kg.fast_scorer``) no small graph's own runs train, on the fast
    path, trained by a small graph (``CHECK_GRAPHS``) at that graph's epochs: RotatE's LCWA on WN18RR, where the
    small graphs' RotatE trains sLCWA. Its twin on pykeen's path trains in the check too (``fast_grid``)."""
    check = next((d for d in CHECK_GRAPHS if d in params["kgs"]), None)
    if check is None:
        return []
    trained = {c["model"] for c in kg_configs_on(params, [d for d in params["kgs"] if d not in LARGE_KGS], fast=True) if "scorer" in c}
    out = []
    for config in kg_configs_on(params, [d for d in params["kgs"] if d in LARGE_KGS and is_available(d)], fast=True):
        if "scorer" in config and config["model"] not in trained:
            trained.add(config["model"])
            out += [kg.make_config(check, config["model"], s, setting=config["dataset"], epochs=params["kg_epochs"] or None,
                                   **kg.fast_fields(config)) for s in range(params["kg_seeds"])]
    return out


def fast_grid(params: dict[str, Any]) -> list[dict[str, Any]]:
    """What the check trains: ``fast_twins``, and the pykeen's-path twins of ``borrowed_twins`` (the others' are the
    page's runs)."""
    twins = fast_twins(params)
    return twins + [kg.pykeens_path(c) for c in twins if "setting" in c]


def fast_passes(params: dict[str, Any], model: str | None = None) -> bool | None:
    """Whether the fast path keeps each of ``model``'s twins' test MRR (× 100; every model's when None) within the
    profile's tolerance of pykeen's, from the records: None until both runs of each such pair are recorded, or where
    there is none."""
    return _fast_passes(json.dumps(params, sort_keys=True), store.stamp(CHAPTER), model)


@functools.lru_cache(maxsize=32)
def _fast_passes(check: str, stamp: tuple[str, int], model: str | None) -> bool | None:
    """``fast_passes`` for one set of parameters (JSON), one state of the store and one model."""
    params = json.loads(check)
    keys = [(kg.EXPERIMENT.key(kg.pykeens_path(c)), kg.EXPERIMENT.key(c)) for c in fast_twins(params) if model in (None, c["model"])]
    wanted = {key for pair in keys for key in pair}
    found = {r["key"]: r["metrics"]["test_mrr"] for r in store.records(CHAPTER) if r["key"] in wanted}
    if not keys or len(found) < len(wanted):
        return None
    return all(100 * abs(found[a] - found[b]) <= params["tolerance"] for a, b in keys)


def target_twins(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs whose loss changed between pykeen versions, as pykeen 1.11 trains them: each ``kg.MULTI_HOT`` run
    on a small knowledge graph (not ``LARGE_KGS``) with its true entities normalised to a distribution instead."""
    return [{k: v for k, v in c.items() if k != "ce_targets"} for c in kg_configs(params)
            if "ce_targets" in c and c["dataset"] not in LARGE_KGS]


def sampler_runs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs that train sLCWA with pykeen's basic sampler on a small knowledge graph (not ``LARGE_KGS``), again
    with negatives drawn as pykeen's tree drew them in March 2022 (``kg.HALF_UNCHANGED``), the window Hoyt et al.'s
    records point to; beside the page's runs, not in place of them (the window is inferred, not confirmed)."""
    return [{**c, "sampler": kg.HALF_UNCHANGED} for c in kg_configs(params) if kg.basic_sampler(c) and c["dataset"] not in LARGE_KGS]


def negatives_note(params: dict[str, Any]) -> str:
    """Which cells train with fewer negatives than their configuration's own, as text for the protocol."""
    cells = {(c["dataset"], c["model"]): (c["negatives"], kg.own_negatives(c)) for c in kg_configs(params) if "negatives" in c}
    return "; ".join(f"{m} on {KG_LABELS[d]} draws {n:,} instead of {own:,}" for (d, m), (n, own) in cells.items()) or "none"


def kg_plan(params: dict[str, Any]) -> pd.DataFrame:
    """Per knowledge graph and model: the configuration it follows (Hoyt et al.'s or pykeen's defaults), that
    configuration's own epochs and the epochs trained under this profile (what is reduced, cell by cell);
    narrow enough for a phone."""
    rows = []
    for config in kg_configs(params):
        if config["seed"] != 0:
            continue
        own = kg.own_epochs(config)
        rows.append({"dataset": KG_LABELS[config["dataset"]], "model": config["model"],
                     "config": "Hoyt et al." if config["source"] == kg.HOYT else "defaults", "own": own, "here": config["epochs"] or own})
    return pd.DataFrame(rows).set_index(["dataset", "model"]) if rows else pd.DataFrame()


MAIN_PARTS = ("kg", "lp")  # the parts whose runs the tables and verdicts read; the others are shown beside them
LARGE_GRID = "large knowledge graphs"  # the grid left empty while its runs are ``pending`` the check before it


def _all_grids(params: dict[str, Any]) -> list[tuple[str, str, Experiment, list[dict[str, Any]]]]:
    """``grids``, the empty ones kept."""
    configs = kg_configs(params)
    return [("kg", "knowledge graphs", kg.EXPERIMENT, [c for c in configs if c["dataset"] not in LARGE_KGS]),
            ("targets", "pykeen 1.11's cross-entropy", kg.EXPERIMENT, target_twins(params)),
            ("sampler", "pykeen's March 2022 sampler", kg.EXPERIMENT, sampler_runs(params)),
            ("fast", "the fast path (fidelity check)", kg.EXPERIMENT, fast_grid(params)),
            ("kg", LARGE_GRID, kg.EXPERIMENT, [c for c in configs if c["dataset"] in LARGE_KGS]),
            ("lp", "link prediction on graphs", linkpred.EXPERIMENT, lp_configs(params))]


def grids(params: dict[str, Any]) -> list[tuple[str, str, Experiment, list[dict[str, Any]]]]:
    """Every grid the chapter trains, in order, as (part, description, experiment, configs): the small knowledge
    graphs, their pykeen 1.11 twins and March 2022 sampler runs, the large knowledge graphs apart (their expected
    memory, ``kg.peak_mb``, may allow fewer workers: RotatE's published WN18RR setting trains one at a time on
    24 GB), then link prediction."""
    return [grid for grid in _all_grids(params) if grid[3]]


def _train(params: dict[str, Any], desc: str, experiment: Experiment, configs: list[dict[str, Any]]) -> pd.DataFrame:
    """Train what one grid lacks and return its records."""
    return run_grid(CHAPTER, experiment.name, configs, params["device"], desc=desc)


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part lacks (a part as ``grids`` names it) and return its records; the knowledge graphs' part
    trains the fast path's check first while its large graphs wait for it (``pending``)."""
    parts = list(dict.fromkeys(grid[0] for grid in _all_grids(params)))
    if part not in parts:
        raise ValueError(f"unknown part {part!r}: one of {', '.join(parts)}")
    if part == "kg" and pending(params):
        run(params, "fast")
    frames = [_train(params, *grid[1:]) for grid in grids(params) if grid[0] == part]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _keys(params: dict[str, Any], parts: tuple[str, ...] | None = None) -> set[str]:
    """Store keys of the runs of ``grids`` (only those of ``parts`` when given)."""
    return {experiment.key(c) for part, _, experiment, configs in grids(params) if parts is None or part in parts for c in configs}


def main_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of the runs the tables and verdicts read: those of ``MAIN_PARTS``."""
    return _keys(params, MAIN_PARTS)


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return _keys(params)


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them (nothing is trained)."""
    known = [c for grid in grids(params) for c in grid[3]]
    return known, store.runs_with_keys(catalog.load(CHAPTER), chapter_keys(params))


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained): only ``MAIN_PARTS``."""
    return store.runs_with_keys(catalog.load(CHAPTER), main_keys(params))


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """Background training: the chapter's grids, in order, the large graphs' too while they are ``pending``.
    Each grid makes its configs when it starts, so the large graphs take the path the check before them decides."""
    def step(desc: str) -> Callable[[], Any]:
        return lambda: _train(params, *next(g[1:] for g in _all_grids(params) if g[1] == desc))

    waiting = bool(pending(params))
    return [(g[1], step(g[1])) for g in _all_grids(params) if g[3] or (waiting and g[1] == LARGE_GRID)]
