"""lrgb-head: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.lrgb_head.paper import CHAPTER, HEAD_STAGES, PAPER, UNAVAILABLE
from graphrepro.chapters.lrgb_head.stages import available, paper_epochs
from graphrepro.chapters.lrgb_head.tables import Tables, seed_values, stage_mean, stage_means
from graphrepro.experiments import lrgb
from graphrepro.verdicts import Budget, Claim, Headline, effect_evidence, paired, paired_interval


# the answer a page opens with: the paper cell a reader sees first, and the paper's headline sentence
# decided by the chapter's claims whose ids end so
HEADLINE = "GCN, tuned (test AP)"
HEADLINE_CLAIM = Headline("Tuned message-passing GNNs match or beat the GPS graph transformer on Peptides-func",
                          "-tuned-vs-gps")


def finding_numbers(t: Tables) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the paper-vs-ours table and the order of
    the stages the page shows."""
    params, order, means = t.params, t.order, stage_means(t.main)

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


def paper_cells(t: Tables) -> list[dict[str, Any]]:
    """Every number of the papers' head ablation beside ours, for the Verdicts page (nothing is trained here)."""
    return report.cell_rows(CHAPTER, t.main, lambda r: f"{r.model}, {r.stage} (test AP)", t.params["tolerance"], "paper-vs-ours")


def headline(t: Tables) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what a 2-layer prediction head adds to LRGB's linear one."""
    means, (linear, two) = stage_means(t.main), HEAD_STAGES[:2]
    gains = {model: (stage_mean(means, model, two) - stage_mean(means, model, linear),
                     f"{model}: test AP {stage_mean(means, model, linear):.1f} with LRGB's linear head, "
                     f"{stage_mean(means, model, two):.1f} with a 2-layer head") for model in t.params["models"]}
    return report.headline_row(CHAPTER, "an under-tuned head", "paper-vs-ours", gains)


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims, each decided by the 95% interval of its per-seed differences (the first cell minus
    the second, paired by seed; ``verdicts.effect_evidence``) on the papers'-budget records where every cell it
    compares has one, else on the profile's: then not decided while that is shorter than the papers', as it is
    while a planned seed at the papers' epochs is missing."""
    params, tol = t.params, t.params["tolerance"]

    def claim(id: str, statement: str, cells: list[tuple[str, str]], bounds: tuple[float, float], what: str,
              paper: float = math.nan) -> Claim:
        epochs = max(paper_epochs(m, s) for m, s in cells)
        a, b = full = [seed_values(t.plan, t.runs, "full", *c) for c in cells]
        budget = None
        if not all(v.notna().any() for v in full):
            a, b = (seed_values(t.plan, t.runs, "main", *c) for c in cells)
            budget = Budget(params["epochs"] or epochs, epochs)
        gap = paired(a, b)
        if budget is None and len(gap) < (want := min(len(v) for v in full)):
            budget = Budget(len(gap), want, f"seed(s) at {epochs} epochs")
        detail = [f"{a.mean():.1f} vs {b.mean():.1f}"] if gap else []
        if not math.isnan(paper):
            detail.append(f"{'below ' if paired_interval(gap)[2] < paper - tol else ''}the paper's {paper:+.1f}")
        detail_text = "; ".join(detail) + ("" if budget and budget.short else f" ({epochs} epochs)")
        return Claim(id, statement, lambda: effect_evidence(what, gap, *bounds, detail_text), budget,
                     "" if available() else UNAVAILABLE)

    gps, rows = (lrgb.GPS, "tuned"), []
    for model in params["models"]:
        linear, two, tuned = ((model, s) for s in HEAD_STAGES)
        lead = PAPER.get(tuned, (math.nan,))[0] - PAPER[gps][0]
        rows.append(claim(f"{model.lower()}-head-gain",
                          f"{model}: the 2-layer head alone improves on LRGB's linear head by more than {tol:g}",
                          [two, linear], (tol, math.inf), "2-layer − linear head"))
        rows.append(claim(f"{model.lower()}-tuned-vs-gps", f"{model}: tuned matches or beats tuned GPS (within {tol:g})",
                          [tuned, gps], (-tol, math.inf), "tuned − GPS", lead))
    rows.append(claim("gps-head-insensitive", f"GPS is insensitive to the head: linear and 2-layer heads within {tol:g}",
                      [gps, (lrgb.GPS, "tuned, linear head")], (-tol, tol), "2-layer − linear head"))
    return rows
