"""han-vs-gat: tables built from the records."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro.chapters.han_vs_gat.configs import _subset, available, config, sampled, sampling_note
from graphrepro.chapters.han_vs_gat.paper import ABLATIONS, LABELS, MAIN_MODELS, PAPER
from graphrepro.experiments import hgb
from graphrepro.metrics import METRICS
from graphrepro.report import fmt, mean_std
from graphrepro.verdicts import Cell, judge_cell


def _cell(runs: pd.DataFrame, metric: str) -> tuple[float, float, int]:
    return mean_std(runs[f"test_{metric}"] if f"test_{metric}" in runs else pd.Series(dtype=float), METRICS[metric].scale)


def main_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Paper and ours, Macro-F1 and Micro-F1 per model and dataset, with a verdict on each (long form)."""
    rows = []
    for dataset in params["datasets"]:
        for model in MAIN_MODELS:
            cell = _subset(runs, [config(params, dataset, model, s) for s in range(params["seeds"])])
            pma, psa, pmi, psi = PAPER.get((model, dataset), (math.nan,) * 4)
            ma, sa, n = _cell(cell, "macro_f1")
            mi, si, _ = _cell(cell, "micro_f1")
            unavailable = dataset not in available(params)
            reduced = f" ({sampling_note(params)}: {', '.join(sampled(params, dataset))})" if model == "HAN" and not unavailable and sampled(params, dataset) else ""
            rows.append({
                "model": LABELS[model], "dataset": dataset,
                "paper": f"{fmt(pma, psa)} / {fmt(pmi, psi)}",
                "ours": Cell.UNAVAILABLE if unavailable else f"{fmt(ma, sa)} / {fmt(mi, si)}{reduced}",
                "verdict": Cell.UNAVAILABLE if unavailable else judge_cell(mi, pmi, params["tolerance"], len(cell)),
                "seeds": n, "paper_macro": pma, "paper_micro": pmi, "macro": ma, "macro_std": sa, "micro": mi, "micro_std": si,
            })
    return pd.DataFrame(rows)


def main_display(long: pd.DataFrame) -> pd.DataFrame:
    """The main table as the page shows it: Macro-F1 / Micro-F1, paper beside ours, verdict on Micro-F1."""
    return long.set_index(["dataset", "model"])[["paper", "ours", "verdict", "seeds"]].rename(
        columns={"paper": "paper (Macro / Micro)", "ours": "ours (Macro / Micro)"})


def _means(runs: pd.DataFrame, configs: list[dict[str, Any]]) -> tuple[float, float, int]:
    cell = _subset(runs, configs)
    mi, si, n = _cell(cell, "micro_f1")
    return mi, si, n


def _shown(mean: float, std: float, n: int, expected: int) -> str:
    """'mean ± std', saying how many seeds it rests on when fewer than the profile's are recorded."""
    return fmt(mean, std) + (f" ({n} of {expected} seeds)" if 0 < n < expected else "")


def metapath_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """GAT on each meta-path graph, HAN on all of them, and GAT on the whole graph (Micro-F1, test)."""
    rows = []
    for dataset in available(params):
        for path in hgb.METAPATHS[dataset]:
            mi, si, n = _means(runs, [config(params, dataset, "GAT-metapath", s, metapath=path) for s in range(params["ablation_seeds"])])
            note = " (sampled neighbours)" if sampled(params, dataset, [path]) else ""
            rows.append({"dataset": dataset, "model": f"GAT on {path}", "Micro-F1": fmt(mi, si) + note, "mean": mi, "seeds": n})
        for model, label in (("HAN", "HAN (all meta-paths)"), ("GAT", "GAT on the whole graph")):
            mi, si, n = _means(runs, [config(params, dataset, model, s) for s in range(params["seeds"])])
            note = " (sampled neighbours)" if model == "HAN" and sampled(params, dataset) else ""
            rows.append({"dataset": dataset, "model": label, "Micro-F1": fmt(mi, si) + note, "mean": mi, "seeds": n})
    return pd.DataFrame(rows)


def feature_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """GAT's Micro-F1 under each feature mode, a column per dataset; the mode HGB's README uses is marked."""
    table: dict[str, dict[str, str]] = {}
    names = {0: "0: every type its features", 1: "1: target features, others zero", 2: "2: target features, others one-hot",
             3: "3: one-hot everywhere"}
    for dataset in available(params):
        readme = hgb.SETTINGS[(dataset, "GAT")]["feats_type"]
        for mode, name in names.items():
            mi, si, n = _means(runs, [config(params, dataset, "GAT", s, feats_type=mode) for s in range(params["ablation_seeds"])])
            table.setdefault(name, {})[dataset] = _shown(mi, si, n, params["ablation_seeds"]) + (" (README)" if mode == readme else "")
    return pd.DataFrame(table).T.rename_axis("feature mode")


def _ablation_means(runs: pd.DataFrame, params: dict[str, Any]) -> dict[str, dict[str, tuple[float, float, int]]]:
    """Micro-F1 (mean, std, seeds) of the full Simple-HGN and of each ablation, per dataset, on the ablation seeds."""
    variants = {"Simple-HGN": {}, **ABLATIONS}
    return {name: {dataset: _means(runs, [config(params, dataset, "SimpleHGN", s, **switch) for s in range(params["ablation_seeds"])])
                   for dataset in available(params)} for name, switch in variants.items()}


def ablation_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Simple-HGN with each addition removed, against the full model (Micro-F1)."""
    table = {name: {dataset: _shown(mi, si, n, params["ablation_seeds"]) for dataset, (mi, si, n) in cells.items()}
             for name, cells in _ablation_means(runs, params).items()}
    return pd.DataFrame(table).T.rename_axis("Simple-HGN")


def ablation_gains(runs: pd.DataFrame, params: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per ablation and dataset: Micro-F1 of the full Simple-HGN minus that without the addition (NaN until
    both cells have every seed of the profile)."""
    means = _ablation_means(runs, params)
    full, seeds = means.pop("Simple-HGN"), params["ablation_seeds"]
    return {name: {dataset: full[dataset][0] - mean if min(n, full[dataset][2]) >= seeds else math.nan
                   for dataset, (mean, _, n) in cells.items()} for name, cells in means.items()}


def cost_frame(runs: pd.DataFrame, params: dict[str, Any], dataset: str = "DBLP") -> pd.DataFrame:
    """Seconds per epoch, peak memory and Micro-F1 of each main-table model on one dataset (from the records)."""
    if dataset not in available(params):
        dataset = (available(params) or [dataset])[0]
    rows = []
    for model in MAIN_MODELS:
        cell = _subset(runs, [config(params, dataset, model, s) for s in range(params["seeds"])])
        if not len(cell):
            continue
        rows.append({"dataset": dataset, "model": LABELS[model] + (" (sampled)" if model == "HAN" and sampled(params, dataset) else ""),
                     "seconds per epoch": float((cell.wall_s / cell.epochs_run.clip(lower=1)).mean()),
                     "peak memory (MB)": float(cell.peak_rss_mb.max()) if "peak_rss_mb" in cell else math.nan,
                     "Micro-F1": 100 * float(cell.test_micro_f1.mean())})
    return pd.DataFrame(rows)
