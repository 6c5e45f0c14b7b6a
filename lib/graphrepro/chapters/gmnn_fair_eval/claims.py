"""gmnn-fair-eval: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.chapters.gmnn_fair_eval.configs import available, recorded_runs
from graphrepro.chapters.gmnn_fair_eval.paper import CHAPTER
from graphrepro.chapters.gmnn_fair_eval.tables import _seed_scores, flip_counts, fold_scores, significance, table
from graphrepro.report import claim_row
from graphrepro.verdicts import Cell


def finding_numbers(tables: list[pd.DataFrame], tested: pd.DataFrame, runs: pd.DataFrame, public: pd.DataFrame,
                    params: dict[str, Any]) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the paper-vs-ours tables (``table``) and
    the significance tests (``significance``) the page shows, and the runs behind them."""
    long = pd.concat(tables, ignore_index=True)
    judged = long[~long.verdict.isin([Cell.UNAVAILABLE, Cell.NOT_RUN])]
    missed = judged[judged.verdict != Cell.REPRODUCED]
    spreads = []
    seeds, folds = _seed_scores(public), fold_scores(runs)
    for dataset in available(params):
        one = seeds[(seeds.dataset == dataset) & (seeds.row == "GCN")]
        many = folds[(folds.dataset == dataset) & (folds.kind == "sparse_balanced") & (folds.row == "GCN")]
        if len(one) > 1 and len(many) > 1:
            spreads.append(f"{dataset} {one.acc.std(ddof=0):.1f} over {len(one)} seeds on the public split, "
                           f"{many.acc.std(ddof=0):.1f} over {len(many)} folds")
    counts = flip_counts(runs, params)
    gmnn = counts[counts["first"].str.contains("GMNN") | counts.second.str.contains("GMNN")]
    tested = tested.dropna(subset=["p"])
    differ = tested[(tested.p < 0.05) != tested.paper.isin(["*", "**", "***"])]
    return {
        "gmnn_fair_eval_reproduced": f"{int((judged.verdict == Cell.REPRODUCED).sum())} of {len(judged)}",
        "gmnn_fair_eval_unrun": str(int((long.verdict == Cell.NOT_RUN).sum())),
        "gmnn_fair_eval_missed": "; ".join(f"{r.dataset}, {r.kind.replace('_', ' ')}, {r.model}: ours {r.ours}, paper {r.paper}"
                                for r in missed.itertuples()) or "none",
        "gmnn_fair_eval_spread": "; ".join(spreads) or "not run yet",
        "gmnn_fair_eval_gmnn_flips": (f"{gmnn.flipped.sum()} of {gmnn.folds.sum()} (dataset, training set, fold) combinations"
                           if len(gmnn) else "not run yet"),
        "gmnn_fair_eval_stars": f"{len(tested) - len(differ)} of {len(tested)}",
        "gmnn_fair_eval_stars_differ": "; ".join(f"{r.dataset}, {r.kind.replace('_', ' ')}, {r.comparison}: ours {r.ours} (p = {r.p:.2g}), "
                                      f"paper {r.paper or 'n.s.'}" for r in differ.itertuples()) or "none",
    }


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of the paper's Tables 3 and 4 beside ours, for the Verdicts page (nothing is trained here)."""
    runs = recorded_runs(params) if runs is None else runs
    return [row for which, number in (("sparse", 3), ("dense", 4)) for row in report.cell_rows(
        CHAPTER, table(runs, params, which), lambda r, n=number: f"Table {n}, {r.dataset}, {r.kind}, {r.model}",
        params["tolerance"], "paper-vs-ours", runs="folds")]


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: how far one split's accuracy can land from another's,
    the range of a model's fold accuracies."""
    scores = fold_scores(recorded_runs(params) if runs is None else runs)
    ranges = {}
    for (dataset, kind, row), cell in (scores.groupby(["dataset", "kind", "row"]) if len(scores) else []):
        if len(cell) > 1 and row not in ("GMNN p", "GMNN q"):
            lo, hi = cell.acc.min(), cell.acc.max()
            ranges[(dataset, kind, row)] = (hi - lo, f"{dataset}, {kind.replace('_', ' ')}, {row}: one fold's test accuracy "
                                                     f"anywhere from {lo:.1f} to {hi:.1f} over {len(cell)} folds")
    return report.headline_row(CHAPTER, "a single split", "protocol", ranges)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = pages.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    scores = fold_scores(runs)
    rows = []
    for dataset in available(params):
        for kind in params["kinds"]:
            mean = lambda label: scores[(scores.dataset == dataset) & (scores.kind == kind) & (scores.row == label)].acc.mean() if len(scores) else math.nan  # noqa: E731
            gcn, mlp = mean("GCN"), mean("MLP")
            rows.append(claim_row(CHAPTER, f"{dataset}, {kind}: the graph helps (GCN above MLP)",
                                  None if math.isnan(gcn + mlp) else bool(gcn > mlp), f"GCN {gcn:.1f} vs MLP {mlp:.1f}"))
    sig = significance(runs, params)
    for _, r in sig.iterrows():
        sparse = r.kind != "dense"
        claim = (f"{r.dataset}, {r.kind}: {r.comparison} significantly (p < 0.05)" if sparse
                 else f"{r.dataset}, {r.kind}: {r.comparison} by less than a point, or not at all")
        holds = None if math.isnan(r.p) else bool(r.p < 0.05) if sparse else bool(r["gain (points)"] < 1.0)
        rows.append(claim_row(CHAPTER, claim, holds, f"gain {r['gain (points)']:.2f} points, p = {r.p:.3g}"))
    return rows
