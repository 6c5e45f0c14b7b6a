"""han-vs-gat: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.han_vs_gat.configs import available
from graphrepro.chapters.han_vs_gat.paper import CHAPTER, FREEBASE, LABELS
from graphrepro.chapters.han_vs_gat.tables import Tables
from graphrepro.data.availability import dataset_status
from graphrepro.verdicts import Cell, Claim, Evidence, Headline, compare, tally


# the answer a page opens with: the paper cell a reader sees first, and the paper's headline sentence
# decided by the chapter's claims whose ids end so
HEADLINE = "Table 3, DBLP, GAT (Macro / Micro-F1)"
HEADLINE_CLAIM = Headline("GAT with proper inputs matches or beats HAN",
                          "-gat-vs-han")


def paper_cells(t: Tables) -> list[dict[str, Any]]:
    """Every number of HGB's Table 3 beside ours, for the Verdicts page (nothing is trained here)."""
    tol = t.params["tolerance"]
    rows = report.cell_rows(CHAPTER, t.main, lambda r: f"Table 3, {r.dataset}, {r.model} (Macro / Micro-F1)", tol,
                            "paper-vs-ours")
    return rows + [{"chapter": CHAPTER, "cell": "Table 3, Freebase, every model", "paper": "in the paper", "ours": "–",
                    "runs": 0, "tolerance": tol, "verdict": f"unavailable: {FREEBASE.split(': ', 1)[1]}",
                    "where": report.anchor(CHAPTER, "paper-vs-ours")}]


def _single(t: Tables, dataset: str) -> pd.Series:
    """GAT's mean Micro-F1 on each of HAN's meta-path graphs of one dataset."""
    paths = t.metapaths[t.metapaths.dataset == dataset]
    return paths[paths.model.str.startswith("GAT on ") & (paths.model != "GAT on the whole graph")]["mean"]


def headline(t: Tables) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: GAT on HAN's best single meta-path graph against GAT
    on the whole graph."""
    gaps = {}
    for dataset, rows in t.metapaths.groupby("dataset", sort=False):
        whole, single = rows[rows.model == "GAT on the whole graph"]["mean"].max(), _single(t, dataset).max()
        gaps[dataset] = (whole - single, f"{dataset}: GAT's Micro-F1 {single:.1f} on HAN's best single meta-path graph, "
                                         f"{whole:.1f} on the whole graph")
    return report.headline_row(CHAPTER, "an unfair input", "metapaths", gaps)


def _micro(t: Tables, model: str, dataset: str) -> float:
    """Our mean Micro-F1 of one main-table cell (NaN until recorded)."""
    match = t.main[(t.main.model == LABELS[model]) & (t.main.dataset == dataset)]
    return float(match.micro.iloc[0]) if len(match) else math.nan


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims, per dataset (unavailable where its files cannot be had) and on the Simple-HGN
    ablation (the paper's section 6.3), decided from the records."""
    params, tol, ready = t.params, t.params["tolerance"], set(available(t.params))

    def claim(id: str, statement: str, values: list[float], rule: Callable[..., bool], evidence: str,
              dataset: str) -> Claim:
        reason = "" if dataset in ready else dataset_status(f"hgb_{dataset.lower()}")["reason"]
        return compare(id, statement, values, rule, evidence, unavailable=reason)

    rows = []
    for d in params["datasets"]:
        gat, han, simple = (_micro(t, m, d) for m in ("GAT", "HAN", "SimpleHGN"))
        single = _single(t, d)
        best = single.max() if len(single) and single.notna().all() else math.nan
        rows.append(claim(f"{d.lower()}-gat-vs-han", f"{d}: GAT on the whole graph matches or beats HAN (within {tol:g} "
                          "points, Micro-F1)", [gat, han], lambda g, h: g >= h - tol, "GAT {:.1f} vs HAN {:.1f}", d))
        rows.append(claim(f"{d.lower()}-simplehgn-vs-gat", f"{d}: Simple-HGN matches or beats GAT (within {tol:g} points, "
                          "Micro-F1)", [simple, gat], lambda s, g: s >= g - tol, "Simple-HGN {:.1f} vs GAT {:.1f}", d))
        rows.append(claim(f"{d.lower()}-metapath-below", f"{d}: GAT on any single meta-path graph scores below HAN and "
                          "below GAT on the whole graph", [best, han, gat], lambda b, h, g: b < h and b < g,
                          "best single meta-path {:.1f}, HAN {:.1f}, GAT {:.1f}", d))
    for name, id, statement, holds in (
        ("without residuals", "residuals-help", "Simple-HGN's residual connections help on every dataset (Micro-F1 "
         "drops without them)", lambda gain: gain > 0),
        ("without L2 normalisation", "l2-norm-helps", "Simple-HGN's L2 normalisation of the output helps on every "
         "dataset (Micro-F1 drops without it)", lambda gain: gain > 0),
        ("without edge-type embeddings", "type-embeddings-slight", "Simple-HGN's edge-type embeddings matter only "
         f"slightly (Micro-F1 moves by at most {tol:g} points without them)", lambda gain: abs(gain) <= tol),
    ):
        rows.append(Claim(id, statement, lambda name=name, holds=holds: _ablation_evidence(t.gains[name], holds)))
    return rows


def _ablation_evidence(gains: dict[str, float], holds: Callable[[float], bool]) -> Evidence:
    """Whether ``holds`` is true of the gain on every dataset (None while one is incomplete), with the gains."""
    known = bool(gains) and not any(math.isnan(g) for g in gains.values())
    text = ", ".join(f"{d} " + ("incomplete" if math.isnan(g) else f"{g:+.1f}") for d, g in gains.items())
    return Evidence(bool(all(holds(g) for g in gains.values())) if known else None,
                    f"{text} (full model minus ablated, points)")


def finding_numbers(t: Tables) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text."""
    long = t.main
    counts = tally(long.verdict)
    spreads = [f"{d} {min(means):.1f}–{max(means):.1f}" for d, means in t.features.items()
               if not any(math.isnan(m) for m in means)]
    return {
        "han_vs_gat_reproduced": f"{counts['reproduced']} of {sum(counts.values())}",
        "han_vs_gat_differ": str(counts["differ"]),
        "han_vs_gat_undecided": str(counts["not decided"]),
        "han_vs_gat_unrun": str(int((long.verdict == Cell.NOT_RUN).sum())),
        "han_vs_gat_feature_spread": "; ".join(spreads) or "not run yet",
        "han_vs_gat_ablation_gains": "; ".join(
            f"{name.removeprefix('without ')}: " + ", ".join(f"{d} {g:+.1f}" for d, g in gains.items() if not math.isnan(g))
            for name, gains in t.gains.items() if any(not math.isnan(g) for g in gains.values())) or "not run yet",
    }
