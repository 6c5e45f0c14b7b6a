"""hgcn-mlp-bug: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.hgcn_mlp_bug.configs import unavailable
from graphrepro.chapters.hgcn_mlp_bug.paper import CHAPTER, SOLVED, TASK_LABELS, TREE_MODELS
from graphrepro.chapters.hgcn_mlp_bug.tables import Tables, tree_table
from graphrepro.verdicts import Cell, Claim, Evidence, Headline, compare


# the answer a page opens with: the paper cell a reader sees first, and the paper's headline sentence
# decided by the chapter's claims whose ids end so
HEADLINE = "Table 1, Disease LP, MLP (debugged)"
HEADLINE_CLAIM = Headline("Debugged, a feature-only MLP matches or beats HGCN on link prediction",
                          "-mlp-vs-hgcn")


def _ours(long: pd.DataFrame, model: str, task: str) -> float:
    """Our tuned mean of one Table 1 cell (NaN until recorded)."""
    match = long[(long.model == model) & (long.task == task)]
    return float(match.ours_mean.iloc[0]) if len(match) else math.nan


def paper_cells(t: Tables) -> list[dict[str, Any]]:
    """Every number of the paper's Tables 1 and 2 beside ours, for the Verdicts page (nothing is trained here)."""
    tol = t.params["tolerance"]
    rows = report.cell_rows(CHAPTER, t.main, lambda r: f"Table 1, {r.task}, {r.model}", tol, "paper-vs-ours")
    tree = tree_table(t.curve, tol).reset_index()
    seeds = t.curve[t.curve["γ"] == 0.0].set_index("model").seeds.reindex(TREE_MODELS).fillna(0).to_list()
    tree = tree.assign(seeds=seeds, ours=tree["ours (tuned)"])
    return rows + report.cell_rows(CHAPTER, tree, lambda r: f"Table 2, Tree1111, {r.model}", tol, "tree1111")


def _lp_tasks(params: dict[str, Any]) -> list[str]:
    """The chosen link-prediction tasks (their ids)."""
    return [task for task in params["tasks"] if task.endswith("/lp")]


def headline(t: Tables) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what the unit-ball projection cost the MLP."""
    lifts = {task: (_ours(t.main, "MLP (original)", task), _ours(t.main, "MLP (debugged)", task))
             for task in (TASK_LABELS[t] for t in _lp_tasks(t.params))}
    return report.headline_row(CHAPTER, "a buggy baseline", "paper-vs-ours", {
        task: (after - before, f"{task}: the MLP's test ROC AUC {before:.1f} with the projection, {after:.1f} without it")
        for task, (before, after) in lifts.items()})


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims, decided from the records of the profile's grids (nothing is trained here)."""
    params, tol, long = t.params, t.params["tolerance"], t.main
    rows = []
    for task in _lp_tasks(params):
        label, name = TASK_LABELS[task], task.split("/")[0].replace("_lp", "").replace("_", "-")
        fixed, buggy, hyper = (_ours(long, m, label) for m in ("MLP (debugged)", "MLP (original)", "HGCN"))
        missing = unavailable(task) or ""
        rows.append(compare(f"{name}-lp-projection-lift", f"{label}: removing the unit-ball projection lifts the MLP by "
                           f"more than {tol:g} points", [buggy, fixed], lambda b, f: f - b > tol, "MLP {:.1f} → {:.1f}",
                           unavailable=missing))
        rows.append(compare(f"{name}-lp-mlp-vs-hgcn", f"{label}: the debugged, feature-only MLP matches or beats HGCN "
                           f"(within {tol:g} points)", [fixed, hyper], lambda f, h: f >= h - tol,
                           "MLP {:.1f} vs HGCN {:.1f}", unavailable=missing))
    gain, leaky, clean = t.nc.loc["MLP", ["leak adds (points)", "HGCN's split (leaky)", "stratified 70/15/15"]]
    rows.append(Claim("airport-nc-leak", f"Airport NC: HGCN's leaky split inflates the MLP by more than {tol:g} points",
                      lambda: Evidence(None if math.isnan(gain) else bool(gain > tol), f"leaky {leaky} vs clean {clean}"),
                      unavailable=unavailable("airport/nc") or ""))
    at0 = t.curve[t.curve["γ"] == 0.0].set_index("model")["mean"].reindex(TREE_MODELS)
    if 0.0 in params["gammas"]:
        rows.append(compare("tree-hyperbolic-wins", f"Tree1111: the hyperbolic model beats both Euclidean ones by more than "
                           f"{tol:g} points", [at0["HGCN"], at0[["MLP", "GCN"]].max(skipna=False)], lambda h, e: h - e > tol,
                           "HGCN {:.1f} vs best Euclidean {:.1f}"))
    high = t.curve[(t.curve.model == "MLP") & (t.curve["γ"] >= 0.4)]
    if len(high):
        rows.append(compare("tree-gamma-mlp-solves", f"Tree1111_γ: once γ ≥ 0.4 the feature-only MLP solves the task "
                           f"(ROC AUC ≥ {SOLVED:g})", [high["mean"].min(skipna=False)], lambda w: w >= SOLVED,
                           "lowest MLP mean for γ ≥ 0.4: {:.1f}"))
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
