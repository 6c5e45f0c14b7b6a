"""hgcn-mlp-bug: the hyperparameter searches and the settings they choose."""

from __future__ import annotations

from typing import Any

import pandas as pd

from graphrepro import catalog, cells, search, store
from graphrepro.chapters.hgcn_mlp_bug.paper import CHAPTER, CURVATURES, SEARCH_SEED
from graphrepro.experiments import hgcn
from graphrepro.grid import run_grid
from graphrepro.models.hgcn import HYPERBOLIC


def space(model: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The settings searched for ``model``: depth, activation, dropout, weight decay, and for HNN and
    HGCN the curvature."""
    axes: dict[str, list[Any]] = {
        "num_layers": [int(v) for v in params["search_layers"]],
        "act": list(params["search_act"]),
        "dropout": [float(v) for v in params["search_dropout"]],
        "weight_decay": [float(v) for v in params["search_weight_decay"]],
    }
    if model in HYPERBOLIC:
        axes["c"] = [CURVATURES[v] for v in params["search_curvature"]]
    return search.grid(axes)


def trial_configs(bases: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """One run per cell and setting, with the search seed."""
    return unique([{**base, **setting, "seed": SEARCH_SEED} for base in bases for setting in space(base["model"], params)])


def selection(base: dict[str, Any], params: dict[str, Any], runs: pd.DataFrame) -> tuple[dict[str, Any] | None, str]:
    """The setting with the best validation score (the experiment's selection metric) among the cell's
    recorded trials, and how it was chosen in words. None until every trial of the grid is recorded;
    the README settings when every trial diverged before its first evaluation."""
    choice = cell_choice(base, params, runs)
    return choice.setting, choice.how


def cell_choice(base: dict[str, Any], params: dict[str, Any], runs: pd.DataFrame) -> search.Choice:
    """The cell's choice: as recorded when the search ran, else computed from its trials' records
    (see ``search.choose``)."""
    settings = space(base["model"], params)
    keys = [key({**base, **s, "seed": SEARCH_SEED}) for s in settings]
    recorded = search.recorded_choice(CHAPTER, hgcn.EXPERIMENT, tuple(keys))
    if recorded is not None:
        return recorded
    readme = {name: base[name] for name in settings[0]}
    return search.choose(settings, keys, runs, hgcn.EXPERIMENT.selection_spec(base), readme, label)


def chosen(base: dict[str, Any], params: dict[str, Any], runs: pd.DataFrame) -> dict[str, Any] | None:
    """The chosen setting of a cell (see ``selection``)."""
    return selection(base, params, runs)[0]


def seed_configs(base: dict[str, Any], setting: dict[str, Any], params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every seed of one cell with one setting."""
    return [{**base, **setting, "seed": s} for s in range(params["seeds"])]


def tuned_configs(bases: list[dict[str, Any]], params: dict[str, Any], runs: pd.DataFrame) -> list[dict[str, Any]]:
    """Every seed of each cell's chosen setting, for the cells whose search is complete."""
    settings = [(base, chosen(base, params, runs)) for base in bases]
    return unique([c for base, setting in settings if setting is not None for c in seed_configs(base, setting, params)])


def untuned_configs(bases: list[dict[str, Any]], params: dict[str, Any], runs: pd.DataFrame) -> list[dict[str, Any]]:
    """Every seed of each cell whose search is not complete, with the README setting standing in for the one it
    will choose (the same epochs): the runs ``tuned_configs`` cannot list yet."""
    return unique([c for base in bases if chosen(base, params, runs) is None for c in seed_configs(base, {}, params)])


def readme_configs(bases: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every seed of each cell with HGCN's README settings (the untuned comparison)."""
    return unique([c for base in bases for c in seed_configs(base, {}, params)])


def recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's records for exactly these configs (nothing is trained)."""
    return subset(catalog.load(CHAPTER), configs)


def configs(bases: list[dict[str, Any]], params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every run of these cells: the trials, then every seed of the README and of the chosen settings
    (chosen from ``runs``, by default the store's records; nothing is trained)."""
    trials = trial_configs(bases, params)
    runs = recorded(trials) if runs is None else runs
    return unique(trials + readme_configs(bases, params) + tuned_configs(bases, params, runs))


def run(bases: list[dict[str, Any]], params: dict[str, Any], desc: str) -> pd.DataFrame:
    """Search every cell on validation, then train every seed of the chosen and the README settings;
    returns every record of these cells (what is recorded is reused)."""
    trials = run_grid(CHAPTER, hgcn.EXPERIMENT.name, trial_configs(bases, params), params["device"], desc=f"{desc}: search")
    for base in bases:  # the decisions, recorded beside the runs they were made from
        search.record_choice(CHAPTER, hgcn.EXPERIMENT, cell_choice(base, params, trials))
    final = unique(readme_configs(bases, params) + tuned_configs(bases, params, trials))
    seeds = run_grid(CHAPTER, hgcn.EXPERIMENT.name, final, params["device"], desc=f"{desc}: seeds")
    return pd.concat([trials, seeds]).drop_duplicates("key").reset_index(drop=True)


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 1 run."""
    return hgcn.EXPERIMENT.key(config)


def unique(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Configs without repeats (cells that share runs, such as the two MLP rows in node classification)."""
    first: dict[str, dict[str, Any]] = {}
    for config in configs:
        first.setdefault(key(config), config)
    return list(first.values())


def subset(runs: pd.DataFrame, configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The records of exactly these configs."""
    return store.runs_with_keys(runs, map(key, configs))


def label(setting: dict[str, Any]) -> str:
    """A setting in a few words."""
    words = [f"{setting['num_layers']} layers", setting["act"], f"dropout {setting['dropout']:g}", f"wd {setting['weight_decay']:g}"]
    if "c" in setting:
        words.append("c trainable" if setting["c"] is None else f"c {setting['c']:g}")
    return ", ".join(words)


def seed_plan(bases: list[tuple[dict[str, Any], dict[str, Any]]], params: dict[str, Any], runs: pd.DataFrame) -> pd.DataFrame:
    """Every seed run of the cells (labels, base config) a table shows, planned once (``cells.plan``): the cell's
    labels, ``role`` (tuned: the search's choice, none until its search is complete; readme: HGCN's README
    settings), the choice in words (``setting``) and the run's key."""
    rows = []
    for labels, base in bases:
        setting, how = selection(base, params, runs)
        for role, chosen in (("tuned", setting), ("readme", {})):
            if chosen is not None:
                rows += [({**labels, "role": role, "setting": how}, c) for c in seed_configs(base, chosen, params)]
    return cells.plan(rows, key, [*(bases[0][0] if bases else {}), "role", "setting"])


def cell_groups(plan: pd.DataFrame, runs: pd.DataFrame, labels: list[str]) -> tuple[dict[Any, pd.DataFrame], dict[Any, str]]:
    """``seed_plan``'s records grouped by ``labels`` and role, and each cell's choice in words."""
    found = cells.recorded(plan, runs)
    groups = {k: g for k, g in found.groupby([*labels, "role"], sort=False)} if len(found) else {}
    return groups, {k: g.setting.iloc[0] for k, g in plan.groupby(labels, sort=False)}
