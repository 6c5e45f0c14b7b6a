"""gmnn-fair-eval: the chapter's runs: the assessment, the public split and the budget study, their training plan
and records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro.chapters.gmnn_fair_eval import budget
from graphrepro.chapters.gmnn_fair_eval.paper import CHAPTER, GMNN_TAU, PUBLIC_PRETRAIN, PUBLIC_SETTING
from graphrepro.chapters.gmnn_fair_eval.searches import (assessment_configs, available, cells, first_setting, key, recorded, search_all,
                                                          search_cell, stand_in)
from graphrepro.experiments import fair_eval
from graphrepro.grid import run_grid


def run(params: dict[str, Any], train: bool = True) -> pd.DataFrame:
    """Search every cell, then run its chosen setting; the records of every assessment run (what is
    recorded is reused; with ``train=False`` nothing trains and incomplete cells are skipped)."""
    configs = [config for cell, choice in search_all(params, train).items() if choice.setting is not None
               for config in assessment_configs(params, cell, choice.setting)]
    if train:
        return run_grid(CHAPTER, fair_eval.EXPERIMENT.name, configs, params["device"], desc="assessment") if configs else pd.DataFrame()
    return recorded(configs)


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


def chapter_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run the chapter shows whose config is known now (search trials replayed, chosen settings' runs, the
    budget study's), once each: NSGA-II may ask a setting again, and its record answers both times."""
    configs = []
    for cell in cells(params):
        choice, asked = search_cell(params, cell, train=False)
        configs += asked
        if choice.setting is not None:
            configs += assessment_configs(params, cell, choice.setting)
    for cell in budget.cells(params):
        chosen, asked = budget.search_cell(params, cell, train=False)
        configs += asked + [c for runs in budget.configs(params, {(cell, n): ch for n, ch in chosen.items()}).values() for c in runs]
    return list({key(c): c for c in configs + public_configs(params)}.values())


def pending(params: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The runs a search will still ask or choose, which ``chapter_configs`` cannot list yet, by what they wait for,
    each as a stand-in of its kind (its cell's runs with the space's first setting; the search trials as one
    config listed once per trial): the trials each incomplete search has not asked yet, and the runs of the
    settings not chosen yet, the budget study's included."""
    trials: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for cell in cells(params):
        choice, asked = search_cell(params, cell, train=False)
        if choice.setting is None:
            trials += [stand_in(params, cell)] * max(0, params["trials"] - len({key(c) for c in asked}))
            runs += assessment_configs(params, cell, first_setting(cell[2]))
    for cell in budget.cells(params):
        chosen, asked = budget.search_cell(params, cell, train=False)
        unchosen = [n for n, choice in chosen.items() if choice.setting is None]
        if unchosen:
            trials += [stand_in(params, cell)] * max(0, max(params["budgets"]) - len({key(c) for c in asked}))
            runs += [{**stand_in(params, cell), "seed": s} for _ in unchosen for s in range(1, params["budget_runs"] + 1)]
    return {k: v for k, v in {"a search's trials not asked yet": trials, "a setting not chosen yet": runs}.items() if v}


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
            + [("budget study", lambda: budget.run(params))])
