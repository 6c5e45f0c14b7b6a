"""Chapter 2: Lv et al. 2021, "Are we really making much progress? Revisiting, benchmarking, and refining
heterogeneous graph neural networks" (HGB): HAN vs GAT, proper inputs, and Simple-HGN."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch

from graphrepro import chapters, report, store
from graphrepro.chapters import DEVICE, PRECISION, Page, Param, same
from graphrepro.data.registry import dataset_status
from graphrepro.experiments import hgb
from graphrepro.grid import run_grid
from graphrepro.metrics import METRICS
from graphrepro.report import claim_row, fmt, mean_std, verdict

CHAPTER = "han-vs-gat"
DATASETS = ("DBLP", "ACM", "IMDB")
MAIN_MODELS = ("GCN", "GAT", "HAN", "SimpleHGN")
LABELS = {"GCN": "GCN", "GAT": "GAT", "HAN": "HAN", "SimpleHGN": "Simple-HGN", "GAT-metapath": "GAT, one meta-path graph"}
ABLATIONS = {"without edge-type embeddings": {"type_embedding": False}, "without residuals": {"residual": False},
             "without L2 normalisation": {"l2_norm": False}}

PAGE = Page(
    CHAPTER,
    "notebooks/02_han_vs_gat.py",
    "Are we really making much progress? HAN vs GAT",
    (
        DEVICE,
        PRECISION,
        Param("datasets", str, "HGB datasets (Freebase is not obtainable here)", {"smoke": ["ACM", "IMDB"], "standard": list(DATASETS),
              "paper": list(DATASETS)}, DATASETS, many=True),
        Param("seeds", int, "training seeds of the main table (seeds 0 .. n-1)", {"smoke": 1, "standard": 5, "paper": 5},
              minimum=1, maximum=50),
        Param("ablation_seeds", int, "seeds of the feature-mode, meta-path and Simple-HGN ablation runs",
              {"smoke": 1, "standard": 3, "paper": 5}, minimum=1, maximum=50),
        Param("max_epochs", int, "epoch cap (HGB: 300, HAN 200, with early stopping on validation loss)",
              {"smoke": 2, "standard": 300, "paper": 300}, minimum=1, maximum=10_000),
        Param("width", str, "paper: HGB's widths (hidden 64, 8 heads; HAN 8 x 8); tiny: hidden 4, 2 heads (smoke)",
              {"smoke": "tiny", "standard": "paper", "paper": "paper"}, ("paper", "tiny")),
        Param("metapath_neighbours", int, "sampled meta-path neighbours per node for HAN and the meta-path GAT on the "
              "large meta-path graphs (0: all neighbours everywhere)", {"smoke": 5, "standard": 100, "paper": 0},
              minimum=0, maximum=1_000_000),
        Param("metapath_edge_limit", int, "a meta-path graph with more edges than this is sampled (DBLP's APTPA and "
              "APVPA, ACM's PTP, PSP, PPSP and P-PSP hold 1.4-9.1 M)", {"smoke": 0, "standard": 1_000_000, "paper": 1_000_000},
              minimum=0, maximum=10**9),
        Param("tolerance", float, "largest |ours - paper| in points that still counts as reproduced, and the margin of "
              "'matches or beats'", same(2.0), minimum=0, maximum=100),
    ),
    module=__name__,
)
EXPERIMENTS = (hgb.EXPERIMENT,)

# HGB paper, Table 3 (node classification, test): (macro mean, std, micro mean, std) in percent, 5 runs.
PAPER: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("HAN", "DBLP"): (91.67, 0.49, 92.05, 0.62), ("HAN", "IMDB"): (57.74, 0.96, 64.63, 0.58), ("HAN", "ACM"): (90.89, 0.43, 90.79, 0.43),
    ("GCN", "DBLP"): (90.84, 0.32, 91.47, 0.34), ("GCN", "IMDB"): (57.88, 1.18, 64.82, 0.64), ("GCN", "ACM"): (92.17, 0.24, 92.12, 0.23),
    ("GAT", "DBLP"): (93.83, 0.27, 93.39, 0.30), ("GAT", "IMDB"): (58.94, 1.35, 64.86, 0.43), ("GAT", "ACM"): (92.26, 0.94, 92.19, 0.93),
    ("SimpleHGN", "DBLP"): (94.01, 0.24, 94.46, 0.22), ("SimpleHGN", "IMDB"): (63.53, 1.36, 67.36, 0.57),
    ("SimpleHGN", "ACM"): (93.42, 0.44, 93.35, 0.45),
}
FREEBASE = "Freebase: not obtainable here (no mirror or snapshot of the HGB Freebase files)"


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
    return [d for d in params["datasets"] if dataset_status(f"hgb_{d.lower()}")["status"] == "available"]


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
    configs, runs = chapter_configs(params), store.load(CHAPTER)
    return configs, store.runs_with_keys(runs, map(key, configs))


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part of the chapter lacks (main, metapath, features, ablation) and return its records."""
    configs = {"main": main_configs, "metapath": metapath_configs, "features": feature_configs,
               "ablation": ablation_configs}[part](params)
    desc = {"main": "HGB Table 3", "metapath": "GAT on meta-path graphs", "features": "GAT feature modes",
            "ablation": "Simple-HGN ablation"}[part]
    return run_grid(CHAPTER, hgb.EXPERIMENT.name, configs, params["device"], desc=desc) if configs else pd.DataFrame()


def _cell(runs: pd.DataFrame, metric: str) -> tuple[float, float, int]:
    return mean_std(runs[f"test_{metric}"] if f"test_{metric}" in runs else pd.Series(dtype=float), METRICS[metric].scale)


def _subset(runs: pd.DataFrame, configs: list[dict[str, Any]]) -> pd.DataFrame:
    return store.runs_with_keys(runs, map(key, configs))


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
                "ours": "unavailable" if unavailable else f"{fmt(ma, sa)} / {fmt(mi, si)}{reduced}",
                "verdict": "unavailable" if unavailable else verdict(mi, pmi, params["tolerance"], len(cell)),
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


def cost_figure(cost: pd.DataFrame) -> plt.Figure:
    """Time per epoch against Micro-F1, marker size by peak memory (the paper's Figure 2)."""
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    if len(cost):
        sizes = 40 + 400 * cost["peak memory (MB)"].fillna(0) / max(cost["peak memory (MB)"].max(), 1)
        ax.scatter(cost["seconds per epoch"], cost["Micro-F1"], s=sizes, color=sns.color_palette()[0], alpha=0.7)
        for _, r in cost.iterrows():
            ax.annotate(r.model, (r["seconds per epoch"], r["Micro-F1"]), textcoords="offset points", xytext=(6, 4))
        ax.set_xscale("log")
        ax.set_title(cost.dataset.iloc[0])
    ax.set_xlabel("seconds per epoch, training and evaluation (one CPU thread)")
    ax.set_ylabel("test Micro-F1 (%)")
    fig.tight_layout()
    return fig


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained)."""
    return chapter_records(params)[1]


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of HGB's Table 3 beside ours, for the Verdicts page (nothing is trained here)."""
    runs = recorded_runs(params) if runs is None else runs
    rows = report.cell_rows(CHAPTER, main_table(runs, params), lambda r: f"Table 3, {r.dataset}, {r.model} (Macro / Micro-F1)",
                            params["tolerance"], "paper-vs-ours")
    return rows + [{"chapter": CHAPTER, "cell": "Table 3, Freebase, every model", "paper": "in the paper", "ours": "–",
                    "runs": 0, "tolerance": params["tolerance"], "verdict": f"unavailable: {FREEBASE.split(': ', 1)[1]}",
                    "where": report.anchor(CHAPTER, "paper-vs-ours")}]


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: GAT on HAN's best single meta-path graph against GAT
    on the whole graph."""
    runs = recorded_runs(params) if runs is None else runs
    paths = metapath_table(runs, params)
    gaps = {}
    for dataset, rows in paths.groupby("dataset", sort=False):
        whole = rows[rows.model == "GAT on the whole graph"]["mean"].max()
        single = rows[rows.model.str.startswith("GAT on ") & (rows.model != "GAT on the whole graph")]["mean"].max()
        gaps[dataset] = (whole - single, f"{dataset}: GAT's Micro-F1 {single:.1f} on HAN's best single meta-path graph, "
                                         f"{whole:.1f} on the whole graph")
    return report.headline_row(CHAPTER, "an unfair input", "metapaths", gaps)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = chapters.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    tol, rows = params["tolerance"], []
    long = main_table(runs, params)
    paths = metapath_table(runs, params)

    def mean(model: str, dataset: str) -> float:
        match = long[(long.model == LABELS[model]) & (long.dataset == dataset)]
        return float(match.micro.iloc[0]) if len(match) else math.nan

    for dataset in available(params):
        gat, han, simple = mean("GAT", dataset), mean("HAN", dataset), mean("SimpleHGN", dataset)
        rows.append(claim_row(CHAPTER, f"{dataset}: GAT on the whole graph matches or beats HAN (within {tol:g} points, Micro-F1)",
                              None if math.isnan(gat + han) else bool(gat >= han - tol), f"GAT {gat:.1f} vs HAN {han:.1f}"))
        rows.append(claim_row(CHAPTER, f"{dataset}: Simple-HGN matches or beats GAT (within {tol:g} points, Micro-F1)",
                              None if math.isnan(gat + simple) else bool(simple >= gat - tol), f"Simple-HGN {simple:.1f} vs GAT {gat:.1f}"))
        single = paths[(paths.dataset == dataset) & paths.model.str.startswith("GAT on ") & (paths.model != "GAT on the whole graph")]
        best = single["mean"].max() if len(single) and single["mean"].notna().all() else math.nan
        rows.append(claim_row(CHAPTER, f"{dataset}: GAT on any single meta-path graph scores below HAN and below GAT on the whole graph",
                              None if math.isnan(best + han + gat) else bool(best < han and best < gat),
                              f"best single meta-path {best:.1f}, HAN {han:.1f}, GAT {gat:.1f}"))
    # the paper's section 6.3: residuals and L2 normalisation help consistently, edge-type embeddings only slightly
    all_gains = ablation_gains(runs, params)
    for name, claim, holds in (
        ("without residuals", "Simple-HGN's residual connections help on every dataset (Micro-F1 drops without them)",
         lambda gain: gain > 0),
        ("without L2 normalisation", "Simple-HGN's L2 normalisation of the output helps on every dataset (Micro-F1 drops "
         "without it)", lambda gain: gain > 0),
        ("without edge-type embeddings", f"Simple-HGN's edge-type embeddings matter only slightly (Micro-F1 moves by at "
         f"most {tol:g} points without them)", lambda gain: abs(gain) <= tol),
    ):
        gains = all_gains[name]
        known = gains and not any(math.isnan(g) for g in gains.values())
        evidence = ", ".join(f"{d} " + ("incomplete" if math.isnan(g) else f"{g:+.1f}") for d, g in gains.items())
        rows.append(claim_row(CHAPTER, claim, bool(all(holds(g) for g in gains.values())) if known else None,
                              f"{evidence} (full model minus ablated, points)"))
    return rows


def bench(seeds: int) -> list[dict[str, Any]]:
    """One GAT layer (8 heads of 64, forward and backward) on each dataset's whole graph, PyG's per-edge
    messages against our sparse product; then seconds per run of GCN and GAT on IMDB, ten epochs each."""
    from torch_geometric.nn import GATConv

    from graphrepro.bench import compare_seconds, seconds_per_run
    from graphrepro.models.hgb import gat_layer

    rows = []
    for dataset in available(chapters.resolve(CHAPTER, "standard")):
        data = hgb.prepare(hgb.make_config(dataset, "GAT", 0))
        graph, n = data["graph"], data["adj"].shape[0]
        x = torch.randn(n, 64, requires_grad=True)
        ours = gat_layer(64, 64, 8, 0.0, 0.05, activation=False)
        theirs = GATConv(64, 64, heads=8, negative_slope=0.05, add_self_loops=False)
        rows.append(compare_seconds(
            f"GAT layer, {dataset} ({graph['edge_index'].shape[1]:,} edges)",
            ("PyG GATConv", lambda: theirs(x, graph["edge_index"]).sum().backward()),
            ("sparse product", lambda: ours(x, graph, None)[0].sum().backward())))
    return rows + [seconds_per_run(hgb.EXPERIMENT, [hgb.make_config("IMDB", m, s, max_epochs=10) for s in range(seeds)],
                                   f"{m}, IMDB, 10 epochs") for m in ("GCN", "GAT")]


def finding_numbers(long: pd.DataFrame, runs: pd.DataFrame, params: dict[str, Any]) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text."""
    judged = long[~long.verdict.isin(["unavailable", "not run", "no paper number"])]
    spreads = []
    for dataset in available(params):
        means = [_means(runs, [config(params, dataset, "GAT", s, feats_type=f) for s in range(params["ablation_seeds"])])[0]
                 for f in range(4)]
        if not any(math.isnan(m) for m in means):
            spreads.append(f"{dataset} {min(means):.1f}–{max(means):.1f}")
    return {
        "ch2_reproduced": f"{int((judged.verdict == 'reproduced').sum())} of {len(judged)}",
        "ch2_unrun": str(int((long.verdict == "not run").sum())),
        "ch2_feature_spread": "; ".join(spreads) or "not run yet",
        "ch2_ablation_gains": "; ".join(
            f"{name.removeprefix('without ')}: " + ", ".join(f"{d} {g:+.1f}" for d, g in gains.items() if not math.isnan(g))
            for name, gains in ablation_gains(runs, params).items() if any(not math.isnan(g) for g in gains.values())) or "not run yet",
    }


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
