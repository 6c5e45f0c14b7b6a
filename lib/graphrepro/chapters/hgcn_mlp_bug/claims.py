"""hgcn-mlp-bug: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.hgcn_mlp_bug.configs import unavailable
from graphrepro.chapters.hgcn_mlp_bug.paper import CHAPTER, SOLVED, TASK_LABELS, TREE_MODELS
from graphrepro.chapters.hgcn_mlp_bug.tables import Tables, tree_table
from graphrepro.verdicts import Cell, Claim, Headline, effect_evidence, every, paired


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


def _seeds(long: pd.DataFrame, model: str, task: str) -> dict[int, float]:
    """Our tuned runs of one Table 1 cell by seed (none until recorded)."""
    match = long[(long.model == model) & (long.task == task)]
    return match["per seed"].iloc[0] if len(match) and "per seed" in match else {}


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims, decided from the records of the profile's grids (nothing is trained here): each on the
    95% interval of its per-seed differences (``verdicts.effect_evidence``), so a gap inside the noise is not decided."""
    params, tol, long = t.params, t.params["tolerance"], t.main
    rows = []
    for task in _lp_tasks(params):
        label, name = TASK_LABELS[task], task.split("/")[0].replace("_lp", "").replace("_", "-")
        fixed, buggy, hyper = (_seeds(long, m, label) for m in ("MLP (debugged)", "MLP (original)", "HGCN"))
        means = {m: _ours(long, m, label) for m in ("MLP (debugged)", "MLP (original)", "HGCN")}
        missing = unavailable(task) or ""
        rows.append(Claim(f"{name}-lp-projection-lift", f"{label}: removing the unit-ball projection lifts the MLP by "
                          f"more than {tol:g} points", lambda f=fixed, b=buggy, m=means: effect_evidence(
                              "debugged − original MLP", paired(f, b), tol, detail=f"MLP {m['MLP (original)']:.1f} → "
                              f"{m['MLP (debugged)']:.1f}"), unavailable=missing))
        rows.append(Claim(f"{name}-lp-mlp-vs-hgcn", f"{label}: the debugged, feature-only MLP matches or beats HGCN "
                          f"(within {tol:g} points)", lambda f=fixed, h=hyper, m=means: effect_evidence(
                              "MLP − HGCN", paired(f, h), -tol, detail=f"MLP {m['MLP (debugged)']:.1f} vs HGCN {m['HGCN']:.1f}"),
                          unavailable=missing))
    leaky, clean = t.nc.loc["MLP", ["HGCN's split (leaky)", "stratified 70/15/15"]]
    split = [t.nc_seeds.get(("MLP", variant), {}) for variant in ("HGCN's split (leaky)", "stratified 70/15/15")]
    rows.append(Claim("airport-nc-leak", f"Airport NC: HGCN's leaky split inflates the MLP by more than {tol:g} points",
                      lambda: effect_evidence("leaky − clean split", paired(*split), tol, detail=f"leaky {leaky} vs clean {clean}"),
                      unavailable=unavailable("airport/nc") or ""))
    if 0.0 in params["gammas"]:
        tree = {m: t.curve[(t.curve["γ"] == 0.0) & (t.curve.model == m)]["per seed"] for m in TREE_MODELS}
        tree = {m: seeds.iloc[0] if len(seeds) else {} for m, seeds in tree.items()}
        rows.append(Claim("tree-hyperbolic-wins", f"Tree1111: the hyperbolic model beats both Euclidean ones by more than "
                          f"{tol:g} points", lambda: every([effect_evidence(f"HGCN − {m}", paired(tree["HGCN"], tree[m]), tol)
                                                             for m in ("MLP", "GCN")])))
    high = t.curve[(t.curve.model == "MLP") & (t.curve["γ"] >= 0.4)]
    if len(high):
        rows.append(Claim("tree-gamma-mlp-solves", f"Tree1111_γ: once γ ≥ 0.4 the feature-only MLP solves the task "
                          f"(ROC AUC ≥ {SOLVED:g})", lambda: every([effect_evidence(
                              f"γ = {r['γ']:g}: MLP − {SOLVED:g}", [v - SOLVED for v in r["per seed"].values()], 0.0)
                              for _, r in high.iterrows()])))
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
