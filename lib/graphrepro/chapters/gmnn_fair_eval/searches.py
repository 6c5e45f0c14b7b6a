"""gmnn-fair-eval: each cell's search and its chosen setting's runs: their configs, keys and records."""

from __future__ import annotations

import contextlib
import zlib
from functools import partial
from typing import Any

import pandas as pd

from graphrepro import catalog, progress, search, store
from graphrepro.chapters.gmnn_fair_eval.paper import CHAPTER, EPS, GMNN_TAU, ROWS, SEARCH_SEED, SPACE
from graphrepro.data.availability import is_available
from graphrepro.experiments import fair_eval
from graphrepro.grid import default_workers, fan_out
from graphrepro.train import resolve_device

Cell = tuple[str, str, str, int]  # a searched (dataset, kind, base model, fold)


def available(params: dict[str, Any]) -> list[str]:
    """The chosen datasets whose files can be had."""
    return [d for d in params["datasets"] if is_available(d)]


def base_config(params: dict[str, Any], dataset: str, kind: str, model: str, fold: int) -> dict[str, Any]:
    """The fixed part of a cell's runs (the searched settings come on top)."""
    return fair_eval.make_config(dataset, fold, kind, model, SEARCH_SEED, max_epochs=params["max_epochs"],
                                 patience=params["patience"], precision=params["precision"],
                                 **({"eps": 0.3} if model == "FAGCN" else {}))


def first_setting(model: str) -> dict[str, Any]:
    """The first value of each searched setting: a stand-in for a setting not yet chosen (``configs.pending``)."""
    return {name: values[0] for name, values in {**SPACE, **({"eps": EPS} if model == "FAGCN" else {})}.items()}


def stand_in(params: dict[str, Any], cell: Cell) -> dict[str, Any]:
    """A search trial of ``cell`` with ``first_setting``: what any of its trials plans (the same epochs)."""
    return {**base_config(params, *cell), **first_setting(cell[2])}


def distributions(model: str) -> dict[str, Any]:
    """The search space as Optuna distributions (categorical: the paper's grid values)."""
    import optuna  # heavy, and only a search needs it

    space = {**SPACE, **({"eps": EPS} if model == "FAGCN" else {})}
    return {name: optuna.distributions.CategoricalDistribution(values) for name, values in space.items()}


def cells(params: dict[str, Any]) -> list[Cell]:
    """Every (dataset, kind, base model, fold) searched."""
    return [(d, k, m, f) for d in available(params) for k in params["kinds"] for m in sorted({m for m, _ in ROWS[table_of(k)]})
            for f in range(params["folds"])]


def table_of(kind: str) -> str:
    """The paper's table that reports a training set: Table 4 ``dense``, Table 3 ``sparse``."""
    return "dense" if kind == "dense" else "sparse"


def _sampler_seed(dataset: str, kind: str, model: str, fold: int) -> int:
    return zlib.crc32(f"{dataset}/{kind}/{model}/{fold}".encode())


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 3 run."""
    return fair_eval.EXPERIMENT.key(config)


def replay(params: dict[str, Any], cell: Cell, trials: int, train: bool, show: bool,
           recorded_asks: bool = True) -> tuple[dict[str, Any], dict[str, dict[str, Any]], pd.DataFrame, list[dict[str, Any]]]:
    """The cell's genetic search up to ``trials`` distinct settings, replayed from the store (``train`` fills the
    gaps; ``recorded_asks``: as ``search.study``): its base config, the distinct settings by key in the order
    first asked, the trials' records and the configs of the trials asked so far."""
    dataset, kind, model, fold = cell
    base = base_config(params, dataset, kind, model, fold)
    asked, records = search.study(CHAPTER, fair_eval.EXPERIMENT.name, base, distributions(model), trials, _sampler_seed(*cell),
                                  params["device"], f"{dataset} {kind} {model} fold {fold}", params["generation"], train=train, show=show,
                                  recorded_asks=recorded_asks)
    distinct = {key({**base, **t.params}): t.params for t in asked if t.told}  # first asks, in order
    return base, distinct, records, [{**base, **t.params} for t in asked]


def choose(base: dict[str, Any], distinct: dict[str, dict[str, Any]], trials: int, records: pd.DataFrame) -> search.Choice:
    """The choice among a search's first ``trials`` distinct settings, made and recorded once they all are."""
    keys, settings = list(distinct)[:trials], list(distinct.values())[:trials]
    if len(keys) < trials:
        return search.Choice(None, "search not complete", tuple(keys))
    recorded = search.recorded_choice(CHAPTER, fair_eval.EXPERIMENT, tuple(keys))
    if recorded is not None:
        return recorded
    choice = search.choose(settings, keys, records, fair_eval.EXPERIMENT.selection_spec(base), settings[0])
    search.record_choice(CHAPTER, fair_eval.EXPERIMENT, choice)
    return choice


def search_cell(params: dict[str, Any], cell: Cell, train: bool,
                show: bool = True) -> tuple[search.Choice, list[dict[str, Any]]]:
    """The cell's genetic search, guided by validation accuracy as the paper's evolution is: its choice among
    the first ``trials`` distinct settings (recorded once complete) and the configs of the trials asked so far."""
    base, distinct, records, asked = replay(params, cell, params["trials"], train, show)
    return choose(base, distinct, params["trials"], records), asked


def assessment_configs(params: dict[str, Any], cell: Cell, setting: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs of a chosen setting, plain and (where a table has a GMNN row for the model) with GMNN: p reading
    labels only (GMNN's public code) and, on the sparse training sets, whose table reports p, also p reading the
    node features (as the GMNN paper writes p)."""
    dataset, kind, model, fold = cell
    base = {**base_config(params, dataset, kind, model, fold), **setting}
    gmnn = {"gmnn_loops": params["gmnn_loops"], "gmnn_epochs": params["gmnn_epochs"], "gmnn_tau": GMNN_TAU}
    with_gmnn = (model, True) in ROWS[table_of(kind)]
    with_x = [{**gmnn, "gmnn_p_features": True}] if kind != "dense" else []  # Table 3 reports p apart; Table 4 only the better
    extras = [{}, gmnn, *with_x] if with_gmnn else [{}]
    return [{**base, "seed": s, **extra} for s in range(1, params["runs"] + 1) for extra in extras]


def search_all(params: dict[str, Any], train: bool = True) -> dict[Cell, search.Choice]:
    """Every cell's choice, replayed from the store; with ``train`` the incomplete searches complete first,
    the cells fanned out over the grid's workers (each search's generations stay in order, so a cell
    asks the same settings however many workers there are)."""
    choices = {cell: search_cell(params, cell, train=False)[0] for cell in cells(params)}
    todo = [cell for cell, choice in choices.items() if choice.setting is None] if train else []
    workers = min(default_workers(), len(todo)) if resolve_device(params["device"]).type != "cuda" else 1
    bar = progress.grid_bar("searches", len(todo), len(choices) - len(todo), unit="cell") if train else contextlib.nullcontext(lambda n: None)
    with bar as update:
        for cell, choice in fan_out([partial(_searched, params, cell) for cell in todo], workers):
            choices[cell] = choice
            update(1)
    return choices


def _searched(params: dict[str, Any], cell: Cell) -> tuple[Cell, search.Choice]:
    return cell, search_cell(params, cell, train=True, show=False)[0]


def recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's records of these configs (nothing is trained)."""
    return store.runs_with_keys(catalog.load(CHAPTER), map(key, configs))
