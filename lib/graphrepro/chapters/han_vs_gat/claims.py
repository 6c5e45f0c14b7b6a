"""han-vs-gat: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.chapters.han_vs_gat.configs import available, config, recorded_runs
from graphrepro.chapters.han_vs_gat.paper import CHAPTER, FREEBASE, LABELS
from graphrepro.chapters.han_vs_gat.tables import _means, ablation_gains, main_table, metapath_table
from graphrepro.report import claim_row
from graphrepro.verdicts import Cell


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
    params = pages.resolve(CHAPTER, profile) if params is None else params
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


def finding_numbers(long: pd.DataFrame, runs: pd.DataFrame, params: dict[str, Any]) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text."""
    judged = long[~long.verdict.isin([Cell.UNAVAILABLE, Cell.NOT_RUN, Cell.NO_PAPER_NUMBER])]
    spreads = []
    for dataset in available(params):
        means = [_means(runs, [config(params, dataset, "GAT", s, feats_type=f) for s in range(params["ablation_seeds"])])[0]
                 for f in range(4)]
        if not any(math.isnan(m) for m in means):
            spreads.append(f"{dataset} {min(means):.1f}–{max(means):.1f}")
    return {
        "han_vs_gat_reproduced": f"{int((judged.verdict == 'reproduced').sum())} of {len(judged)}",
        "han_vs_gat_unrun": str(int((long.verdict == Cell.NOT_RUN).sum())),
        "han_vs_gat_feature_spread": "; ".join(spreads) or "not run yet",
        "han_vs_gat_ablation_gains": "; ".join(
            f"{name.removeprefix('without ')}: " + ", ".join(f"{d} {g:+.1f}" for d, g in gains.items() if not math.isnan(g))
            for name, gains in ablation_gains(runs, params).items() if any(not math.isnan(g) for g in gains.values())) or "not run yet",
    }
