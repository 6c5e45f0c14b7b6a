"""han-vs-gat: tables built from the records, grouped once by ``configs.plan``'s labels."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import cells
from graphrepro.chapters.han_vs_gat.configs import available, plan, sampled, sampling_note
from graphrepro.chapters.han_vs_gat.paper import ABLATIONS, LABELS, MAIN_MODELS, PAPER, PAPER_RUNS
from graphrepro.experiments import hgb
from graphrepro.metrics import METRICS
from graphrepro.report import fmt
from graphrepro.verdicts import Cell, Estimate, judge_cell, judge_metrics, paired


def _stats(runs: pd.DataFrame, planned: pd.DataFrame, part: str, by: list[str], metric: str = "micro_f1") -> pd.DataFrame:
    """``cells.stats`` of one part of the plan, on the test split."""
    return cells.stats(planned[planned.part == part], runs, by, f"test_{metric}", METRICS[metric].scale)


def _at(found: pd.DataFrame, *cell: Any) -> tuple[float, float, int, int]:
    """(mean, std, n, runs) of one cell of ``_stats`` (NaN, 0, 0, 0 when the plan has no such cell)."""
    if cell not in found.index:
        return math.nan, 0.0, 0, 0
    mean, std, n, runs = found.loc[cell]
    return float(mean), float(std), int(n), int(runs)


def main_table(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """Paper and ours, Macro-F1 and Micro-F1 per model and dataset, with a verdict on each (long form)."""
    planned = plan(params) if planned is None else planned
    macro, micro = (_stats(runs, planned, "main", ["dataset", "model"], m) for m in ("macro_f1", "micro_f1"))
    rows = []
    for dataset in params["datasets"]:
        for model in MAIN_MODELS:
            pma, psa, pmi, psi = PAPER.get((model, dataset), (math.nan,) * 4)
            ma, sa, n, _ = _at(macro, dataset, model)
            mi, si, _, recorded = _at(micro, dataset, model)
            unavailable = dataset not in available(params)
            reduced = f" ({sampling_note(params)}: {', '.join(sampled(params, dataset))})" if model == "HAN" and not unavailable and sampled(params, dataset) else ""
            rows.append({
                "model": LABELS[model], "dataset": dataset,
                "paper": f"{fmt(pma, psa)} / {fmt(pmi, psi)}",
                "ours": Cell.UNAVAILABLE if unavailable else f"{fmt(ma, sa)} / {fmt(mi, si)}{reduced}",
                "verdict": Cell.UNAVAILABLE if unavailable else judge_metrics({
                    "Macro-F1": judge_cell(Estimate(ma, sa, int(n)), Estimate(pma, psa, PAPER_RUNS), params["tolerance"], recorded),
                    "Micro-F1": judge_cell(Estimate(mi, si, int(n)), Estimate(pmi, psi, PAPER_RUNS), params["tolerance"], recorded)}),
                "seeds": int(n), "paper_macro": pma, "paper_micro": pmi, "macro": ma, "macro_std": sa, "micro": mi, "micro_std": si,
            })
    return pd.DataFrame(rows)


def main_display(long: pd.DataFrame) -> pd.DataFrame:
    """The main table as the page shows it: Macro-F1 / Micro-F1, paper beside ours, a verdict on both."""
    return long.set_index(["dataset", "model"])[["paper", "ours", "verdict", "seeds"]].rename(
        columns={"paper": "paper (Macro / Micro)", "ours": "ours (Macro / Micro)"})


def _shown(mean: float, std: float, n: int, expected: int) -> str:
    """'mean ± std', saying how many seeds it rests on when fewer than the profile's are recorded."""
    return fmt(mean, std) + (f" ({n} of {expected} seeds)" if 0 < n < expected else "")


def metapath_table(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """GAT on each meta-path graph, HAN on all of them, and GAT on the whole graph (Micro-F1, test)."""
    planned = plan(params) if planned is None else planned
    paths, main = _stats(runs, planned, "metapath", ["dataset", "variant"]), _stats(runs, planned, "main", ["dataset", "model"])
    rows = []
    for dataset in available(params):
        for path in hgb.METAPATHS[dataset]:
            mi, si, n, _ = _at(paths, dataset, path)
            note = " (sampled neighbours)" if sampled(params, dataset, [path]) else ""
            rows.append({"dataset": dataset, "model": f"GAT on {path}", "Micro-F1": fmt(mi, si) + note, "mean": mi, "seeds": n})
        for model, label in (("HAN", "HAN (all meta-paths)"), ("GAT", "GAT on the whole graph")):
            mi, si, n, _ = _at(main, dataset, model)
            note = " (sampled neighbours)" if model == "HAN" and sampled(params, dataset) else ""
            rows.append({"dataset": dataset, "model": label, "Micro-F1": fmt(mi, si) + note, "mean": mi, "seeds": n})
    return pd.DataFrame(rows)


FEATURE_MODES = {0: "0: every type its features", 1: "1: target features, others zero", 2: "2: target features, others one-hot",
                 3: "3: one-hot everywhere"}


def feature_table(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """GAT's Micro-F1 under each feature mode, a column per dataset; the mode HGB's README uses is marked."""
    planned = plan(params) if planned is None else planned
    found, table = _stats(runs, planned, "features", ["dataset", "variant"]), {}
    for dataset in available(params):
        readme = hgb.SETTINGS[(dataset, "GAT")]["feats_type"]
        for mode, name in FEATURE_MODES.items():
            mi, si, n, _ = _at(found, dataset, mode)
            table.setdefault(name, {})[dataset] = _shown(mi, si, n, params["ablation_seeds"]) + (" (README)" if mode == readme else "")
    return pd.DataFrame(table).T.rename_axis("feature mode")


def feature_means(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> dict[str, list[float]]:
    """GAT's mean Micro-F1 under each feature mode, per dataset."""
    planned = plan(params) if planned is None else planned
    found = _stats(runs, planned, "features", ["dataset", "variant"])
    return {d: [_at(found, d, mode)[0] for mode in FEATURE_MODES] for d in available(params)}


def _ablation_means(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> dict[str, dict[str, tuple]]:
    """Micro-F1 (mean, std, seeds) of the full Simple-HGN and of each ablation, per dataset, on the ablation seeds."""
    planned = plan(params) if planned is None else planned
    found = _stats(runs, planned, "ablation", ["dataset", "variant"])
    return {name: {dataset: _at(found, dataset, name)[:3] for dataset in available(params)} for name in ("Simple-HGN", *ABLATIONS)}


def ablation_table(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """Simple-HGN with each addition removed, against the full model (Micro-F1)."""
    table = {name: {dataset: _shown(mi, si, n, params["ablation_seeds"]) for dataset, (mi, si, n) in found.items()}
             for name, found in _ablation_means(runs, params, planned).items()}
    return pd.DataFrame(table).T.rename_axis("Simple-HGN")


def ablation_gains(seeds: pd.DataFrame, params: dict[str, Any]) -> dict[str, dict[str, list[float]]]:
    """Per ablation and dataset: the full Simple-HGN's Micro-F1 minus that without the addition, on each seed
    where both are recorded (``per_seed``'s ablation table): what the claims and the findings read."""
    names = [c for c in seeds.columns if c != "Simple-HGN"]
    return {name: {d: differences(seeds, d, "Simple-HGN", name) for d in available(params)} for name in names}


def per_seed(runs: pd.DataFrame, planned: pd.DataFrame, part: str, across: str) -> pd.DataFrame:
    """Test Micro-F1 (× 100) of one part of the plan, a row per dataset and seed and a column per ``across`` value
    (``model`` or ``variant``): what paired differences between two columns are taken from."""
    done = cells.recorded(planned[planned.part == part], runs)
    if not len(done) or "test_micro_f1" not in done:
        return pd.DataFrame(index=pd.MultiIndex.from_arrays([[], []], names=["dataset", "seed"]))
    done = done.assign(value=METRICS["micro_f1"].scale * done.test_micro_f1)
    return done.pivot_table(index=["dataset", "seed"], columns=across, values="value")


def differences(seeds: pd.DataFrame, dataset: str, a: str, b: str) -> list[float]:
    """``a`` minus ``b`` on each seed of ``dataset`` where both are recorded (``per_seed``'s table)."""
    if a not in seeds or b not in seeds or dataset not in seeds.index.get_level_values("dataset"):
        return []
    return paired(seeds.loc[dataset, a], seeds.loc[dataset, b])


def cost_frame(runs: pd.DataFrame, params: dict[str, Any], dataset: str = "DBLP") -> pd.DataFrame:
    """Seconds per epoch, peak memory and Micro-F1 of each main-table model on one dataset (from the records)."""
    if dataset not in available(params):
        dataset = (available(params) or [dataset])[0]
    planned = plan(params)
    done = cells.recorded(planned[(planned.part == "main") & (planned.dataset == dataset)], runs)
    rows = []
    for model in MAIN_MODELS:
        cell = done[done.model == model]
        if not len(cell):
            continue
        rows.append({"dataset": dataset, "model": LABELS[model] + (" (sampled)" if model == "HAN" and sampled(params, dataset) else ""),
                     "seconds per epoch": float((cell.wall_s / cell.epochs_run.clip(lower=1)).mean()),
                     "peak memory (MB)": float(cell.peak_rss_mb.max()) if "peak_rss_mb" in cell else math.nan,
                     "Micro-F1": 100 * float(cell.test_micro_f1.mean())})
    return pd.DataFrame(rows)


class Tables(cells.Tables, plan=plan):
    """The tables the claims, findings, headline and Verdicts page read, over one frame of records."""

    main = cells.table("Paper and ours, both F1s per model and dataset", lambda t: main_table(t.runs, t.params, t.plan))
    metapaths = cells.table("GAT per meta-path graph against HAN", lambda t: metapath_table(t.runs, t.params, t.plan))
    seeds = cells.table("Table 3's Micro-F1 per seed, a column per model", lambda t: per_seed(t.runs, t.plan, "main", "model"))
    path_seeds = cells.table("GAT's Micro-F1 per seed on each meta-path graph, a column per meta-path",
                             lambda t: per_seed(t.runs, t.plan, "metapath", "variant"))
    ablation_seeds = cells.table("The ablations' Micro-F1 per seed, a column per variant",
                                 lambda t: per_seed(t.runs, t.plan, "ablation", "variant"))
    gains = cells.table("Simple-HGN's gain from each addition, per seed", lambda t: ablation_gains(t.ablation_seeds, t.params))
    features = cells.table("GAT's Micro-F1 per feature mode", lambda t: feature_means(t.runs, t.params, t.plan))