"""gmnn-fair-eval: the runs: their configs, keys, training plan and records."""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable
from functools import partial
from typing import Any

import pandas as pd

from graphrepro import catalog, progress, search, store
from graphrepro.chapters.gmnn_fair_eval.paper import (
    CHAPTER,
    EPS,
    GMNN_TAU,
    PUBLIC_PRETRAIN,
    PUBLIC_SETTING,
    BUDGET_CELLS,
    ROWS,
    SEARCH_SEED,
    SPACE,
)
from graphrepro.data.availability import is_available
from graphrepro.experiments import fair_eval
from graphrepro.grid import default_workers, fan_out, run_grid
from graphrepro.train import resolve_device


def available(params: dict[str, Any]) -> list[str]:
    """The chosen datasets whose files can be had."""
    return [d for d in params["datasets"] if is_available(d)]


def base_config(params: dict[str, Any], dataset: str, kind: str, model: str, fold: int) -> dict[str, Any]:
    """The fixed part of a cell's runs (the searched settings come on top)."""
    return fair_eval.make_config(dataset, fold, kind, model, SEARCH_SEED, max_epochs=params["max_epochs"],
                                 patience=params["patience"], precision=params["precision"],
                                 **({"eps": 0.3} if model == "FAGCN" else {}))


def distributions(model: str) -> dict[str, Any]:
    """The search space as Optuna distributions (categorical: the paper's grid values)."""
    import optuna  # heavy, and only a search needs it

    space = {**SPACE, **({"eps": EPS} if model == "FAGCN" else {})}
    return {name: optuna.distributions.CategoricalDistribution(values) for name, values in space.items()}


def cells(params: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    """Every (dataset, kind, base model, fold) searched."""
    return [(d, k, m, f) for d in available(params) for k in params["kinds"] for m in sorted({m for m, _ in ROWS[_table(k)]})
            for f in range(params["folds"])]


def _table(kind: str) -> str:
    return "dense" if kind == "dense" else "sparse"


def _sampler_seed(dataset: str, kind: str, model: str, fold: int) -> int:
    return zlib.crc32(f"{dataset}/{kind}/{model}/{fold}".encode())


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 3 run."""
    return fair_eval.EXPERIMENT.key(config)


def _search(params: dict[str, Any], cell: tuple[str, str, str, int], trials: int, train: bool,
            show: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]], pd.DataFrame, list[dict[str, Any]]]:
    """The cell's genetic search up to ``trials`` distinct settings, replayed from the store (``train`` fills the
    gaps): its base config, the distinct settings by key in the order first asked, the trials' records and the
    configs of the trials asked so far."""
    dataset, kind, model, fold = cell
    base = base_config(params, dataset, kind, model, fold)
    study, records = search.study(CHAPTER, fair_eval.EXPERIMENT.name, base, distributions(model), trials, _sampler_seed(*cell),
                                  params["device"], f"{dataset} {kind} {model} fold {fold}", params["generation"], train=train, show=show)
    distinct = {key({**base, **t.params}): t.params for t in study.trials if t.state.is_finished()}  # first asks, in order
    return base, distinct, records, [{**base, **t.params} for t in study.trials]


def _choose(base: dict[str, Any], distinct: dict[str, dict[str, Any]], trials: int, records: pd.DataFrame) -> search.Choice:
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


def search_cell(params: dict[str, Any], cell: tuple[str, str, str, int], train: bool,
                show: bool = True) -> tuple[search.Choice, list[dict[str, Any]]]:
    """The cell's genetic search, guided by validation accuracy as the paper's evolution is: its choice among
    the first ``trials`` distinct settings (recorded once complete) and the configs of the trials asked so far."""
    base, distinct, records, asked = _search(params, cell, params["trials"], train, show)
    return _choose(base, distinct, params["trials"], records), asked


def budget_search(params: dict[str, Any], cell: tuple[str, str, str, int], train: bool) -> tuple[dict[int, search.Choice], list[dict[str, Any]]]:
    """One search as long as the largest of ``params["budgets"]``, and a choice per budget among its first that
    many distinct settings: the smaller budgets' searches are this one's beginning (the same seeded sampler)."""
    base, distinct, records, asked = _search(params, cell, max(params["budgets"]), train, show=False)
    return {n: _choose(base, distinct, n, records) for n in params["budgets"]}, asked


BudgetCell = tuple[str, str, str, int]  # the budget study's dataset, kind, base model and fold


def budget_cells(params: dict[str, Any]) -> list[BudgetCell]:
    """The budget study's (dataset, kind, model, fold) whose data can be had (none unless ``budget_study``)."""
    ready = set(available(params)) if params["budget_study"] else set()
    return [(d, k, m, f) for d, k, m in BUDGET_CELLS if d in ready for f in range(params["folds"])]


def budget_choices(params: dict[str, Any], train: bool = True) -> dict[tuple[BudgetCell, int], search.Choice]:
    """Each budget cell's choice at each budget; with ``train`` the searches complete first, fanned out over the
    grid's workers as ``search_all``'s are."""
    todo = budget_cells(params)
    if not (train and todo):
        return {(cell, n): choice for cell in todo for n, choice in budget_search(params, cell, False)[0].items()}
    workers = min(default_workers(), len(todo)) if resolve_device(params["device"]).type != "cuda" else 1
    chosen: dict[tuple[BudgetCell, int], search.Choice] = {}
    with progress.grid_bar("budget searches", len(todo), 0, unit="cell") as update:
        for cell, choices in fan_out([partial(_budget_searched, params, cell) for cell in todo], workers):
            chosen.update({(cell, n): choice for n, choice in choices.items()})
            update(1)
    return {(cell, n): chosen[(cell, n)] for cell in todo for n in params["budgets"]}  # in the cells' order


def _budget_searched(params: dict[str, Any], cell: BudgetCell) -> tuple[BudgetCell, dict[int, search.Choice]]:
    return cell, budget_search(params, cell, train=True)[0]


def budget_configs(params: dict[str, Any], chosen: dict[tuple[BudgetCell, int], search.Choice]) -> dict[tuple[BudgetCell, int], list[dict[str, Any]]]:
    """The runs of each budget's chosen setting (seeds 1 .. ``budget_runs``), by cell and budget."""
    return {(cell, n): [{**base_config(params, *cell), **choice.setting, "seed": s} for s in range(1, params["budget_runs"] + 1)]
            for (cell, n), choice in chosen.items() if choice.setting is not None}


def assessment_configs(params: dict[str, Any], cell: tuple[str, str, str, int], setting: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs of a chosen setting, plain and (where a table has a GMNN row for the model) with GMNN: p reading
    labels only (GMNN's public code) and, on the sparse training sets, whose table reports p, also p reading the
    node features (as the GMNN paper writes p)."""
    dataset, kind, model, fold = cell
    base = {**base_config(params, dataset, kind, model, fold), **setting}
    gmnn = {"gmnn_loops": params["gmnn_loops"], "gmnn_epochs": params["gmnn_epochs"], "gmnn_tau": GMNN_TAU}
    with_gmnn = (model, True) in ROWS[_table(kind)]
    with_x = [{**gmnn, "gmnn_p_features": True}] if kind != "dense" else []  # Table 3 reports p apart; Table 4 only the better
    extras = [{}, gmnn, *with_x] if with_gmnn else [{}]
    return [{**base, "seed": s, **extra} for s in range(1, params["runs"] + 1) for extra in extras]


def search_all(params: dict[str, Any], train: bool = True) -> dict[tuple[str, str, str, int], search.Choice]:
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


def _searched(params: dict[str, Any], cell: tuple[str, str, str, int]) -> tuple[tuple[str, str, str, int], search.Choice]:
    return cell, search_cell(params, cell, train=True, show=False)[0]


def run(params: dict[str, Any], train: bool = True) -> pd.DataFrame:
    """Search every cell, then run its chosen setting; the records of every assessment run (what is
    recorded is reused; with ``train=False`` nothing trains and incomplete cells are skipped)."""
    configs = [config for cell, choice in search_all(params, train).items() if choice.setting is not None
               for config in assessment_configs(params, cell, choice.setting)]
    if train:
        return run_grid(CHAPTER, fair_eval.EXPERIMENT.name, configs, params["device"], desc="assessment") if configs else pd.DataFrame()
    return recorded(configs)


def run_budget(params: dict[str, Any]) -> pd.DataFrame:
    """Complete the budget study's searches, then train its runs; their records."""
    planned = [c for runs in budget_configs(params, budget_choices(params, train=True)).values() for c in runs]
    unique = list({key(c): c for c in planned}.values())
    return run_grid(CHAPTER, fair_eval.EXPERIMENT.name, unique, params["device"], desc="budget study") if unique else pd.DataFrame()


def public_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """MLP, GCN and GCN+GMNN on the public split with GMNN's own settings, seeds 1 .. public_seeds."""
    configs = []
    for dataset in available(params):
        epochs = min(params["max_epochs"], PUBLIC_PRETRAIN[dataset])
        gmnn = {"gmnn_loops": 1, "gmnn_epochs": min(params["gmnn_epochs"], 100), "gmnn_tau": GMNN_TAU}
        for model, extra in (("MLP", {}), ("GCN", {}), ("GCN", gmnn)):
            configs += [fair_eval.make_config(dataset, 0, "public", model, seed, max_epochs=epochs, patience=epochs + 1,
                                              precision=params["precision"], **PUBLIC_SETTING, **extra) for seed in range(1, params["public_seeds"] + 1)]
    return configs


def run_public(params: dict[str, Any], train: bool = True) -> pd.DataFrame:
    """The public-split runs (trained where missing, unless ``train`` is False)."""
    configs = public_configs(params)
    if train:
        return run_grid(CHAPTER, fair_eval.EXPERIMENT.name, configs, params["device"], desc="public split") if configs else pd.DataFrame()
    return recorded(configs)


def recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's records of these configs (nothing is trained)."""
    return store.runs_with_keys(catalog.load(CHAPTER), map(key, configs))


def chapter_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run the chapter shows whose config is known now (search trials replayed, chosen settings' runs, the
    budget study's), once each: NSGA-II may ask a setting again, and its record answers both times."""
    configs = []
    for cell in cells(params):
        choice, asked = search_cell(params, cell, train=False)
        configs += asked
        if choice.setting is not None:
            configs += assessment_configs(params, cell, choice.setting)
    for cell in budget_cells(params):
        chosen, asked = budget_search(params, cell, train=False)
        configs += asked + [c for runs in budget_configs(params, {(cell, n): ch for n, ch in chosen.items()}).values() for c in runs]
    return list({key(c): c for c in configs + public_configs(params)}.values())


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params`` (as far as the recorded searches tell)."""
    return {key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """The chapter's known runs and their records (nothing is trained)."""
    configs = chapter_configs(params)
    return configs, recorded(configs)


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The assessment runs its tables and verdicts read (nothing is trained)."""
    return run(params, train=False)


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's searches and assessment runs, sparse training sets first (they train fastest), then the budget
    study (the longest searches)."""
    order = sorted(params["kinds"], key=lambda k: k == "dense")
    return ([("public split", lambda: run_public(params))] + [(kind, lambda kind=kind: run({**params, "kinds": [kind]})) for kind in order]
            + [("budget study", lambda: run_budget(params))])
