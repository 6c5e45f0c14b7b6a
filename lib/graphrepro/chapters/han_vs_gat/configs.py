"""han-vs-gat: the runs: their configs, keys, training plan and records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import catalog, cells, store
from graphrepro.chapters.han_vs_gat.paper import ABLATIONS, CHAPTER, MAIN_MODELS
from graphrepro.data.availability import is_available
from graphrepro.experiments import hgb
from graphrepro.grid import run_grid


def _size(params: dict[str, Any], model: str) -> dict[str, Any]:
    """Width overrides of the ``tiny`` profile (none at the paper's widths)."""
    if params["width"] == "paper":
        return {}
    return {"hidden": 4, "heads": 2}


def config(params: dict[str, Any], dataset: str, model: str, seed: int, **extra: Any) -> dict[str, Any]:
    """One run of the chapter: HGB's settings for the dataset and model, the profile's caps."""
    settings = hgb.SETTINGS[(dataset, model)]
    fields = {**_size(params, model), **extra, "max_epochs": min(params["max_epochs"], settings.get("max_epochs", 300)),
              "precision": params["precision"]}
    if model in ("HAN", "GAT-metapath") and params["metapath_neighbours"]:
        fields.update(metapath_neighbours=params["metapath_neighbours"], metapath_edge_limit=params["metapath_edge_limit"])
    return hgb.make_config(dataset, model, seed, **fields)


def sampling_note(params: dict[str, Any]) -> str:
    """The meta-path sampling reduction in words, stated beside every cell it touches."""
    return (f"{params['metapath_neighbours']} sampled neighbours per node on meta-path graphs of more than "
            f"{params['metapath_edge_limit']:,} edges")


def sampled(params: dict[str, Any], dataset: str, paths: list[str] | None = None) -> list[str]:
    """Which of the dataset's meta-path graphs (all, or ``paths``) the profile samples."""
    if not params["metapath_neighbours"]:
        return []
    sizes = hgb.metapath_sizes(dataset)
    return [p for p in (paths or list(sizes)) if sizes[p] > params["metapath_edge_limit"]]


def available(params: dict[str, Any]) -> list[str]:
    """The chosen datasets whose files can be had."""
    return [d for d in params["datasets"] if is_available(f"hgb_{d.lower()}")]


def main_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """HGB Table 3: every model on every dataset, every seed."""
    return [config(params, d, m, s) for d in available(params) for m in MAIN_MODELS for s in range(params["seeds"])]


def metapath_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """GAT on each single meta-path graph of each dataset (HAN's own baseline)."""
    return [config(params, d, "GAT-metapath", s, metapath=p) for d in available(params) for p in hgb.METAPATHS[d]
            for s in range(params["ablation_seeds"])]


def feature_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """GAT under each of HGB's feature modes 0-3."""
    return [config(params, d, "GAT", s, feats_type=f) for d in available(params) for f in range(4)
            for s in range(params["ablation_seeds"])]


def ablation_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Simple-HGN with one of its additions removed."""
    return [config(params, d, "SimpleHGN", s, **switch) for d in available(params) for switch in ABLATIONS.values()
            for s in range(params["ablation_seeds"])]


PLAN_LABELS = ["part", "dataset", "model", "variant", "seed"]


def plan(params: dict[str, Any]) -> pd.DataFrame:
    """Every run the chapter reads, each config built once, labelled by the table it fills: ``main`` (Table 3),
    ``metapath`` (GAT per meta-path graph, the path as ``variant``), ``features`` (GAT per feature mode),
    ``ablation`` (Simple-HGN, the full model and each ablation on the ablation seeds); ``cells.plan``."""
    seeds, few = range(params["seeds"]), range(params["ablation_seeds"])
    rows = [(dict(part="main", dataset=d, model=m, variant="", seed=s), config(params, d, m, s))
            for d in available(params) for m in MAIN_MODELS for s in seeds]
    rows += [(dict(part="metapath", dataset=d, model="GAT", variant=p, seed=s), config(params, d, "GAT-metapath", s, metapath=p))
             for d in available(params) for p in hgb.METAPATHS[d] for s in few]
    rows += [(dict(part="features", dataset=d, model="GAT", variant=f, seed=s), config(params, d, "GAT", s, feats_type=f))
             for d in available(params) for f in range(4) for s in few]
    rows += [(dict(part="ablation", dataset=d, model="SimpleHGN", variant=name, seed=s), config(params, d, "SimpleHGN", s, **switch))
             for d in available(params) for name, switch in {"Simple-HGN": {}, **ABLATIONS}.items() for s in few]
    return cells.plan(rows, key, PLAN_LABELS)


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 2 run."""
    return hgb.EXPERIMENT.key(config)


def chapter_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run the chapter shows, without repeats (the main table's GAT is also a feature mode)."""
    unique: dict[str, dict[str, Any]] = {}
    for c in main_configs(params) + feature_configs(params) + metapath_configs(params) + ablation_configs(params):
        unique.setdefault(key(c), c)
    return list(unique.values())


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them (nothing is trained)."""
    configs, runs = chapter_configs(params), catalog.load(CHAPTER)
    return configs, store.runs_with_keys(runs, map(key, configs))


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part of the chapter lacks (main, metapath, features, ablation) and return its records."""
    configs = {"main": main_configs, "metapath": metapath_configs, "features": feature_configs,
               "ablation": ablation_configs}[part](params)
    desc = {"main": "HGB Table 3", "metapath": "GAT on meta-path graphs", "features": "GAT feature modes",
            "ablation": "Simple-HGN ablation"}[part]
    return run_grid(CHAPTER, hgb.EXPERIMENT.name, configs, params["device"], desc=desc) if configs else pd.DataFrame()


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained)."""
    return chapter_records(params)[1]


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's runs for background training, the main table first and cheapest first within it (GCN;
    HAN on sampled meta-path graphs; GAT and Simple-HGN on IMDB, then elsewhere), then the meta-path
    GAT, the feature modes and the Simple-HGN ablation."""
    main = main_configs(params)

    def grid(desc: str, configs: list[dict[str, Any]]) -> tuple[str, Callable[[], Any]]:
        return desc, lambda: run_grid(CHAPTER, hgb.EXPERIMENT.name, configs, params["device"], desc=desc)

    def pick(model: str, imdb: bool | None = None) -> list[dict[str, Any]]:
        return [c for c in main if c["model"] == model and imdb in (None, c["dataset"] == "IMDB")]

    return [
        grid("GCN", pick("GCN")), grid("HAN", pick("HAN")),
        grid("GAT, IMDB", pick("GAT", True)), grid("Simple-HGN, IMDB", pick("SimpleHGN", True)),
        grid("GAT", pick("GAT", False)), grid("Simple-HGN", pick("SimpleHGN", False)),
        grid("GAT on meta-path graphs", metapath_configs(params)),
        grid("GAT feature modes", feature_configs(params)), grid("Simple-HGN ablation", ablation_configs(params)),
    ]
