"""hgcn-mlp-bug: the runs: their configs, keys, training plan and records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import catalog, cells
from graphrepro.chapters.hgcn_mlp_bug import tuning
from graphrepro.chapters.hgcn_mlp_bug.paper import (
    CHAPTER,
    NC_MODELS,
    NC_VARIANTS,
    ROWS,
    SEARCH_SEED,
    TASK_SETTINGS,
    TREE_MODELS,
)
from graphrepro.data.availability import Availability, dataset_status
from graphrepro.experiments import hgcn
from graphrepro.grid import run_grid


def unavailable(task: str) -> str | None:
    """Why a task's dataset cannot be had here (None when it can)."""
    status = dataset_status(task.split("/")[0])
    return status["reason"] if status["status"] is not Availability.AVAILABLE else None


def run_variant(model: str, variant: str, task: str) -> str:
    """The variant a table row trains: the ball projection exists only in Euclidean link prediction."""
    return variant if task.endswith("/lp") and model in hgcn.EUCLIDEAN else "none"


def table1_bases(params: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Every cell of Table 1 that the data allows: (model, variant, task, base config)."""
    cells = []
    for task in params["tasks"]:
        if unavailable(task):
            continue
        dataset, kind = task.split("/")
        for model, variant in ROWS:
            base = hgcn.make_config(
                dataset, kind, model, SEARCH_SEED, run_variant(model, variant, task),
                max_epochs=params["max_epochs"], precision=params["precision"], **TASK_SETTINGS[task],
            )
            cells.append((model, variant, task, base))
    return cells


def table1_configs(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every run behind Table 1 (see ``tuning.configs``)."""
    return tuning.configs([cell[3] for cell in table1_bases(params)], params, runs)


def run_table1(params: dict[str, Any]) -> pd.DataFrame:
    """Search each cell on validation, then train every seed of the chosen and the README settings."""
    return tuning.run([cell[3] for cell in table1_bases(params)], params, "Table 1")


def chapter_configs(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every run the chapter shows, given the records (by default the store's): Table 1, the airport
    node-classification variants, the trees."""

    runs = catalog.load(CHAPTER) if runs is None else runs
    return tuning.unique(table1_configs(params, runs) + nc_split_configs(params) + tree_configs(params, runs))


def pending(params: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The runs ``chapter_configs`` cannot list yet, by what they wait for: the chosen setting's seeds of each cell
    (Table 1's and the trees') whose search is not complete (``tuning.untuned_configs``)."""
    bases = [cell[3] for cell in table1_bases(params)] + tree_bases(params)
    waiting = tuning.untuned_configs(bases, params, catalog.load(CHAPTER))
    return {"a setting not chosen yet": waiting} if waiting else {}


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {tuning.key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them, read once (nothing is trained)."""
    runs = catalog.load(CHAPTER)
    configs = chapter_configs(params, runs)
    return configs, tuning.subset(runs, configs)


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained)."""
    return chapter_records(params)[1]


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's training, in the order ``python -m graphrepro train`` runs it (what the page trains)."""

    return [("Table 1", lambda: run_table1(params)), ("Airport NC splits", lambda: run_nc_splits(params)),
            ("Tree1111_γ", lambda: run_trees(params))]


def nc_variant_configs(params: dict[str, Any], model: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Every seed of one model on airport node classification with the README settings and ``fields``."""
    return [
        hgcn.make_config("airport", "nc", model, seed, c=None, max_epochs=params["max_epochs"], precision=params["precision"], **fields)
        for seed in range(params["seeds"])
    ]


def nc_plan(params: dict[str, Any]) -> pd.DataFrame:
    """Airport node classification with HGCN's leaky split, with a clean stratified 70/15/15 split, and
    with the leaky split and feature column 4 (which the classes are binned from) left in: a row per run
    (``cells.plan``), labelled by model, variant (the table's column) and seed."""
    return cells.plan(_nc_rows(params), tuning.key, ["model", "variant", "seed"])


def _nc_rows(params: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(labels, config) of every node-classification run."""
    return [({"model": model, "variant": name, "seed": c["seed"]}, c) for name, fields in NC_VARIANTS.items()
            for model in NC_MODELS for c in nc_variant_configs(params, model, fields)]


def nc_split_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The configs of ``nc_plan``."""
    return [config for _, config in _nc_rows(params)]


def run_nc_splits(params: dict[str, Any]) -> pd.DataFrame:
    """Train what is missing of the node-classification comparison."""
    return run_grid(CHAPTER, hgcn.EXPERIMENT.name, nc_split_configs(params), params["device"], desc="Airport NC splits")


def tree_bases(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One base config per γ and model: link prediction on Tree1111_γ with raw Gaussian features."""
    return [
        hgcn.make_config(
            "tree1111", "lp", model, SEARCH_SEED, "debugged" if model in hgcn.EUCLIDEAN else "none",
            normalize_feats=False, tree_gamma=float(gamma), max_epochs=params["max_epochs"], precision=params["precision"],
        )
        for gamma in params["gammas"] for model in TREE_MODELS
    ]


def tree_configs(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every tree run (see ``tuning.configs``)."""
    return tuning.configs(tree_bases(params), params, runs)


def run_trees(params: dict[str, Any]) -> pd.DataFrame:
    """Search every (γ, model) on validation, then train every seed of the chosen and README settings."""
    return tuning.run(tree_bases(params), params, "Tree1111_γ")
