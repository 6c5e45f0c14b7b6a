"""mrr-variants: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.chapters.mrr_variants.configs import recorded_runs
from graphrepro.chapters.mrr_variants.paper import CHAPTER, PAPER_PCQM, PAPER_SHIFT_ROW
from graphrepro.chapters.mrr_variants.tables import (
    kg_crosscheck,
    kg_frame,
    orders,
    shift_table,
    size_correlations,
    variant_frame,
    worked_example,
)
from graphrepro.metrics import ranking
from graphrepro.report import claim_row
from graphrepro.verdicts import Cell


def finding_numbers(frame: pd.DataFrame, ties: pd.DataFrame, kgs: pd.DataFrame) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the variant frame, the tie table and the
    knowledge-graph frame the page shows."""
    shift = shift_table(frame).drop(index=PAPER_SHIFT_ROW) if len(frame) else pd.DataFrame()
    changes = orders(frame)["order changes"] if len(frame) else pd.Series(dtype=str)
    reordered = list(changes[changes == "yes"].index)
    rho = size_correlations(kgs)["Spearman ρ with candidates"]
    constant = ties["constant"]
    largest = kg_crosscheck(kgs)["largest |ours - pykeen|"].max() if len(kgs) else math.nan
    return {
        "mrr_variants_shifts": "; ".join(f"{graph} {row['raw']:.1f} raw, {row['+ filtering']:+.1f} for filtering, "
                                f"{row['+ no self-loops']:+.1f} for removing self-loops" for graph, row in shift.iterrows()) or "not run yet",
        "mrr_variants_reordered": (f"{len(reordered)} of {len(changes)}" + (f" ({', '.join(reordered)})" if reordered else "")
                          if len(changes) else "not run yet"),
        "mrr_variants_constant": (f"{constant['MRR, optimistic']:.3f} under optimistic ranks, {constant['MRR, realistic']:.4f} under "
                         f"realistic and {constant['MRR, pessimistic']:.4f} under pessimistic ones"),
        "mrr_variants_rho": ", ".join(f"{name} {rho[ranking.RANK_METRICS[m].label]:+.2f}" for m, name in
                             (("mrr", "MRR"), ("amri", "AMRI"), ("z_mrr", "z-scored MRR")))
                   if rho.notna().any() else "not computable here (it needs knowledge graphs of different sizes)",
        "mrr_variants_crosscheck": "not run yet" if math.isnan(largest) else f"{largest:.1g} over {len(kgs)} runs",
    }


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """The papers' numbers beside ours, for the Verdicts page: the worked example's three MRRs (computed by
    the library, equal to the note's three decimals) and the PCQM-Contact shift, which is not obtainable here."""
    example = worked_example()
    rows = [{"chapter": CHAPTER, "cell": f"worked example, {variant}", "paper": f"{r['MRR (note)']:.3f}",
             "ours": f"{r['MRR (ours)']:.3f}", "runs": 0, "tolerance": 0.0005,
             "verdict": Cell.REPRODUCED if abs(r["MRR (ours)"] - r["MRR (note)"]) <= 0.0005 else
             f"{Cell.DIFFERS} by {r['MRR (ours)'] - r['MRR (note)']:+.3f}", "where": report.anchor(CHAPTER, "worked-example")}
            for variant, r in example.iterrows()]
    raw, extended = PAPER_PCQM["raw"], PAPER_PCQM["extended"]
    return rows + [{"chapter": CHAPTER, "cell": "PCQM-Contact, GPS: raw → extended-filtered MRR",
                    "paper": f"{raw[0]:.4f} → {extended[0]:.4f}", "ours": "–", "runs": 0, "tolerance": params["tolerance"],
                    "verdict": "unavailable: PCQM-Contact is not obtainable here (the chapter measures the shift on its own graphs)",
                    "where": report.anchor(CHAPTER, "raw-filtered")}]


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: how much raw and extended-filtered MRR differ."""
    runs = recorded_runs(params) if runs is None else runs
    frame = variant_frame(runs)
    shifts = {}
    if len(frame):
        for graph, row in shift_table(frame).drop(index=PAPER_SHIFT_ROW).iterrows():
            shifts[graph] = (row["+ both"], f"{graph}: MRR {row['raw']:.1f} raw, {row['raw'] + row['+ both']:.1f} extended-filtered (× 100)")
    return report.headline_row(CHAPTER, "an inconsistent metric", "raw-filtered", shifts)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = pages.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    tol, rows = params["tolerance"], []
    frame = variant_frame(runs)
    if len(frame):
        shift = shift_table(frame).drop(index=PAPER_SHIFT_ROW)
        moved = shift["+ both"]
        rows.append(claim_row(CHAPTER, f"Filtering and removing self-loops raise MRR by more than {tol:g} point(s) on every graph",
                              bool((moved > tol).all()), "; ".join(f"{g} +{v:.1f}" for g, v in moved.items())))
        changes = orders(frame)["order changes"]
        rows.append(claim_row(CHAPTER, "The variant changes the order of the encoders on at least one graph",
                              bool((changes == "yes").any()), f"{int((changes == 'yes').sum())} of {len(changes)} graphs"))
    else:
        rows += [claim_row(CHAPTER, "Filtering and removing self-loops raise MRR on every graph", None, "no records"),
                 claim_row(CHAPTER, "The variant changes the order of the encoders on at least one graph", None, "no records")]
    kgs = kg_frame(runs)
    corr = size_correlations(kgs)
    mrr_rho = corr.loc["mean reciprocal rank", "Spearman ρ with candidates"] if len(corr) else math.nan
    amri_rho = corr.loc["adjusted mean rank index", "Spearman ρ with candidates"] if len(corr) else math.nan
    rows.append(claim_row(CHAPTER, "MRR falls as the number of candidates grows (Spearman ρ < 0 across knowledge graphs and models)",
                          None if math.isnan(mrr_rho) else bool(mrr_rho < 0), f"ρ = {mrr_rho:.2f}"))
    rows.append(claim_row(CHAPTER, "The adjusted mean rank index depends less on size than MRR (|ρ| smaller)",
                          None if math.isnan(mrr_rho + amri_rho) else bool(abs(amri_rho) < abs(mrr_rho)),
                          f"AMRI ρ = {amri_rho:.2f}, MRR ρ = {mrr_rho:.2f}"))
    return rows
