"""hgcn-mlp-bug: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.chapters.hgcn_mlp_bug.configs import recorded_runs
from graphrepro.chapters.hgcn_mlp_bug.paper import CHAPTER, SOLVED, TASK_LABELS, TREE_MODELS
from graphrepro.chapters.hgcn_mlp_bug.tables import _mean, nc_split_table, table1, tree_curve, tree_table
from graphrepro.report import claim_row
from graphrepro.verdicts import Cell


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of the paper's Tables 1 and 2 beside ours, for the Verdicts page (nothing is trained here)."""

    runs = recorded_runs(params) if runs is None else runs
    tol = params["tolerance"]
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    rows = report.cell_rows(CHAPTER, long, lambda r: f"Table 1, {r.task}, {r.model}", tol, "paper-vs-ours")
    curve = tree_curve(runs, params)
    tree = tree_table(curve, tol).reset_index()
    seeds = curve[curve["γ"] == 0.0].set_index("model").seeds.reindex(TREE_MODELS).fillna(0).to_list()
    tree = tree.assign(seeds=seeds, ours=tree["ours (tuned)"])
    return rows + report.cell_rows(CHAPTER, tree, lambda r: f"Table 2, Tree1111, {r.model}", tol, "tree1111")


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what the unit-ball projection cost the MLP."""
    runs = recorded_runs(params) if runs is None else runs
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    lifts = {task: (_mean(long, "MLP (original)", task), _mean(long, "MLP (debugged)", task))
             for task in [TASK_LABELS[t] for t in params["tasks"] if t.endswith("/lp")]}
    return report.headline_row(CHAPTER, "a buggy baseline", "paper-vs-ours", {
        task: (after - before, f"{task}: the MLP's test ROC AUC {before:.1f} with the projection, {after:.1f} without it")
        for task, (before, after) in lifts.items()})


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records of the profile's grids (nothing is trained here)."""

    params = pages.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    tol = params["tolerance"]
    rows = []
    lp_tasks = [TASK_LABELS[t] for t in params["tasks"] if t.endswith("/lp")]
    for task in lp_tasks:
        fixed, buggy = _mean(long, "MLP (debugged)", task), _mean(long, "MLP (original)", task)
        hyper = _mean(long, "HGCN", task)
        lift_known = not (math.isnan(fixed) or math.isnan(buggy))
        rows.append(claim_row(
            CHAPTER, f"{task}: removing the unit-ball projection lifts the MLP by more than {tol:g} points",
            (fixed - buggy > tol) if lift_known else None, f"MLP {buggy:.1f} → {fixed:.1f}",
        ))
        match_known = not (math.isnan(fixed) or math.isnan(hyper))
        rows.append(claim_row(
            CHAPTER, f"{task}: the debugged, feature-only MLP matches or beats HGCN (within {tol:g} points)",
            (fixed >= hyper - tol) if match_known else None, f"MLP {fixed:.1f} vs HGCN {hyper:.1f}",
        ))
    if len(runs):
        nc = nc_split_table(runs, params)
        gain, leaky, clean = nc.loc["MLP", ["leak adds (points)", "HGCN's split (leaky)", "stratified 70/15/15"]]
        rows.append(claim_row(
            CHAPTER, f"Airport NC: HGCN's leaky split inflates the MLP by more than {tol:g} points",
            None if math.isnan(gain) else bool(gain > tol), f"leaky {leaky} vs clean {clean}",
        ))
    curve = tree_curve(runs, params)
    at0 = curve[curve["γ"] == 0.0].set_index("model")["mean"]
    if len(at0) == len(TREE_MODELS):
        hyper, eucl = at0["HGCN"], max(at0["MLP"], at0["GCN"])
        rows.append(claim_row(
            CHAPTER, f"Tree1111: the hyperbolic model beats both Euclidean ones by more than {tol:g} points",
            None if at0.isna().any() else bool(hyper - eucl > tol), f"HGCN {hyper:.1f} vs best Euclidean {eucl:.1f}",
        ))
    high = curve[(curve.model == "MLP") & (curve["γ"] >= 0.4)]
    if len(high):
        worst = high["mean"].min(skipna=False)
        rows.append(claim_row(
            CHAPTER, f"Tree1111_γ: once γ ≥ 0.4 the feature-only MLP solves the task (ROC AUC ≥ {SOLVED:g})",
            None if math.isnan(worst) else bool(worst >= SOLVED), f"lowest MLP mean for γ ≥ 0.4: {worst:.1f}",
        ))
    return rows


def finding_numbers(long: pd.DataFrame) -> list[dict[str, str]]:
    """The numbers the findings quote, tuned and with the README settings (key + "_readme"), as glue
    keys and 'mean ± std' text ('not run' where absent)."""
    wanted = {
        "mlp_original_disease_lp": ("MLP (original)", "Disease LP"),
        "mlp_debugged_disease_lp": ("MLP (debugged)", "Disease LP"),
        "hgcn_disease_lp": ("HGCN", "Disease LP"),
        "mlp_original_airport_lp": ("MLP (original)", "Airport LP"),
        "mlp_debugged_airport_lp": ("MLP (debugged)", "Airport LP"),
        "hgcn_airport_lp": ("HGCN", "Airport LP"),
        "mlp_airport_nc": ("MLP (original)", "Airport NC"),
        "gcn_original_disease_lp": ("GCN (original)", "Disease LP"),
    }
    rows = []
    for key, (model, task) in wanted.items():
        match = long[(long.model == model) & (long.task == task)]
        known = len(match) and match.ours_mean.notna().iloc[0]
        rows.append({"key": key, "value": match.ours.iloc[0] if known else Cell.NOT_RUN})
        rows.append({"key": f"{key}_readme", "value": match["README settings"].iloc[0] if len(match) else Cell.NOT_RUN})
    return rows
