"""lrgb-head: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.chapters.lrgb_head.configs import full_params, paper_epochs, recorded_runs
from graphrepro.chapters.lrgb_head.paper import CHAPTER, HEAD_STAGES
from graphrepro.chapters.lrgb_head.tables import main_table, stage_mean, stage_means
from graphrepro.experiments import lrgb
from graphrepro.report import claim_row


def finding_numbers(long: pd.DataFrame, order: pd.DataFrame, params: dict[str, Any]) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the paper-vs-ours table (``main_table``)
    and the order of the stages (``order_table``) the page shows."""
    means = stage_means(long)

    def gains(better: str, worse: str) -> str:
        pairs = [(m, stage_mean(means, m, better) - stage_mean(means, m, worse)) for m in params["models"]]
        known = [f"{m} {g:+.1f}" for m, g in pairs if not math.isnan(g)]
        return ", ".join(known) or "not run yet"

    tuned = {m: stage_mean(means, m, "tuned") for m in params["models"]}
    tuned = {m: v for m, v in tuned.items() if not math.isnan(v)}
    gps = stage_mean(means, lrgb.GPS, "tuned")
    gps_head = gps - stage_mean(means, lrgb.GPS, "tuned, linear head")
    best = max(tuned, key=tuned.get) if tuned else None
    decided = order.settled[~order.settled.str.startswith("not decided")] if len(order) else pd.Series(dtype=str)
    settled = (f"{int(decided.eq('yes').sum())} of {len(decided)} model(s) trained for the papers' epochs" if len(decided)
               else "no model: every budget so far is shorter than the papers', so the order is not decided")
    return {
        "lrgb_head_head_gains": gains("LRGB, 2-layer head", "LRGB, linear head"),
        "lrgb_head_tuned_gains": gains("tuned", "LRGB, linear head"),
        "lrgb_head_rwse_gains": gains("tuned", "tuned without RWSE"),
        "lrgb_head_tuned_vs_head": gains("tuned", "LRGB, 2-layer head"),
        "lrgb_head_gps_head": "not run yet" if math.isnan(gps_head) else f"{gps_head:+.1f}",
        "lrgb_head_best_vs_gps": (f"{best} {tuned[best]:.1f} against GPS {gps:.1f}" if best and not math.isnan(gps)
                            else "not run yet"),
        "lrgb_head_settled": settled if len(order) else "not run yet",
    }


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of the papers' head ablation beside ours, for the Verdicts page (nothing is trained here)."""
    runs = recorded_runs(params) if runs is None else runs
    return report.cell_rows(CHAPTER, main_table(runs, params), lambda r: f"{r.model}, {r.stage} (test AP)",
                            params["tolerance"], "paper-vs-ours")


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what a 2-layer prediction head adds to LRGB's linear one."""
    runs = recorded_runs(params) if runs is None else runs
    means = stage_means(main_table(runs, params))
    linear, two = HEAD_STAGES[0], HEAD_STAGES[1]
    gains = {model: (stage_mean(means, model, two) - stage_mean(means, model, linear),
                     f"{model}: test AP {stage_mean(means, model, linear):.1f} with LRGB's linear head, "
                     f"{stage_mean(means, model, two):.1f} with a 2-layer head") for model in params["models"]}
    return report.headline_row(CHAPTER, "an under-tuned head", "paper-vs-ours", gains)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = pages.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    tol, rows = params["tolerance"], []
    short, full = stage_means(main_table(runs, params)), stage_means(main_table(runs, full_params(params)))

    def decide(claim: str, cells: list[tuple[str, str]], rule: Callable[..., bool], evidence: str) -> dict[str, str]:
        """The claim from the papers'-budget records where every cell has them, else from the profile's."""
        epochs = max(paper_epochs(m, s) for m, s in cells)
        values = [stage_mean(full, m, s) for m, s in cells]
        budget = (epochs, epochs)
        if any(math.isnan(v) for v in values):
            values, budget = [stage_mean(short, m, s) for m, s in cells], (params["epochs"] or epochs, epochs)
        holds = None if any(math.isnan(v) for v in values) else bool(rule(*values))
        settled = f" ({epochs} epochs)" if budget[0] == epochs else ""
        return claim_row(CHAPTER, claim, holds, evidence.format(*values) + settled, budget)

    gps = (lrgb.GPS, "tuned")
    for model in params["models"]:
        linear, two, tuned = ((model, s) for s in HEAD_STAGES)
        rows.append(decide(f"{model}: the 2-layer head alone improves on LRGB's linear head by more than {tol:g}",
                           [two, linear], lambda a, b: a > b + tol, "{:.1f} vs {:.1f}"))
        rows.append(decide(f"{model}: tuned matches or beats tuned GPS (within {tol:g})",
                           [tuned, gps], lambda a, b: a >= b - tol, "tuned {:.1f} vs GPS {:.1f}"))
    rows.append(decide(f"GPS is insensitive to the head: linear and 2-layer heads within {tol:g}",
                       [gps, (lrgb.GPS, "tuned, linear head")], lambda a, b: abs(a - b) <= tol, "2-layer {:.1f} vs linear {:.1f}"))
    return rows
