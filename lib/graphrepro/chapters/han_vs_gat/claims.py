"""han-vs-gat: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.han_vs_gat.configs import available
from graphrepro.chapters.han_vs_gat.paper import CHAPTER, FREEBASE, LABELS, PAPER, PAPER_RUNS
from graphrepro.chapters.han_vs_gat.tables import Tables, differences
from graphrepro.data.availability import dataset_status
from graphrepro.experiments import hgb
from graphrepro.verdicts import (
    Cell,
    Claim,
    Estimate,
    Evidence,
    Headline,
    difference_interval,
    effect_evidence,
    every,
    interval_evidence,
    paired_words,
    tally,
)


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
    rows = []
    for d in params["datasets"]:
        why = "" if d in ready else dataset_status(f"hgb_{d.lower()}")["reason"]  # unavailable: why
        gat_han, simple_gat = differences(t.seeds, d, "GAT", "HAN"), differences(t.seeds, d, "SimpleHGN", "GAT")
        rows += [
            Claim(f"{d.lower()}-gat-vs-han", f"{d}: GAT on the whole graph matches or beats HAN (within {tol:g} points, "
                  "Micro-F1)", lambda g=gat_han: effect_evidence("GAT − HAN", g, -tol), unavailable=why),
            Claim(f"{d.lower()}-gat-lead", f"{d}: GAT leads HAN by the paper's {_paper_lead(d).mean:+.2f} points (within "
                  f"{tol:g}, Micro-F1)", lambda g=gat_han, d=d: _lead_evidence(g, _paper_lead(d), tol), unavailable=why),
            Claim(f"{d.lower()}-simplehgn-vs-gat", f"{d}: Simple-HGN matches or beats GAT (within {tol:g} points, "
                  "Micro-F1)", lambda g=simple_gat: effect_evidence("Simple-HGN − GAT", g, -tol), unavailable=why),
            Claim(f"{d.lower()}-metapath-below", f"{d}: GAT on any single meta-path graph scores below HAN and below GAT "
                  "on the whole graph", lambda d=d: _below_both(t, d), unavailable=why)]
    for name, id, statement, (lowest, highest) in (
        ("without residuals", "residuals-help", "Simple-HGN's residual connections help on every dataset (Micro-F1 "
         "drops without them)", (0.0, math.inf)),
        ("without L2 normalisation", "l2-norm-helps", "Simple-HGN's L2 normalisation of the output helps on every "
         "dataset (Micro-F1 drops without it)", (0.0, math.inf)),
        ("without edge-type embeddings", "type-embeddings-slight", "Simple-HGN's edge-type embeddings matter only "
         f"slightly (Micro-F1 moves by at most {tol:g} points without them)", (-tol, tol)),
    ):
        gains = t.gains.get(name, {d: [] for d in available(params)})
        rows.append(Claim(id, statement, lambda gains=gains, lo=lowest, hi=highest: every(
            [effect_evidence(f"{d} full − ablated", g, lo, hi) for d, g in gains.items()])))
    return rows


def _below_both(t: Tables, dataset: str) -> Evidence:
    """GAT on each meta-path graph of ``dataset`` below HAN and below GAT on the whole graph: every one of those
    per-seed differences' intervals under zero (``verdicts.every``), with the means in words first."""
    seeds, paths = t.seeds.join(t.path_seeds, how="outer"), hgb.METAPATHS[dataset]
    single = _single(t, dataset)
    means = (f"best single meta-path {single.max():.1f}, HAN {_micro(t, 'HAN', dataset):.1f}, GAT {_micro(t, 'GAT', dataset):.1f}"
             if len(single) and single.notna().all() else "")
    found = every([effect_evidence(f"{path} − {model}", differences(seeds, dataset, path, model), -math.inf, 0.0)
                   for path in paths for model in ("HAN", "GAT")])
    return Evidence(found.holds, "; ".join(w for w in (means, found.text) if w), found.undecided)


def _paper_lead(dataset: str) -> Estimate:
    """The paper's GAT minus HAN (Micro-F1), with the spread of a difference of two independent means."""
    gat, han = PAPER.get(("GAT", dataset), (math.nan,) * 4), PAPER.get(("HAN", dataset), (math.nan,) * 4)
    return Estimate(gat[2] - han[2], math.hypot(gat[3], han[3]), PAPER_RUNS)


def _lead_evidence(gap: list[float], paper: Estimate, tolerance: float) -> Evidence:
    """Our GAT - HAN against the paper's: holds when the interval of the two leads' difference lies within
    ±``tolerance``, does not hold when it lies wholly outside; says when the sign holds but the size does not."""
    low, high, text = paired_words(gap)
    ours = Estimate(statistics.fmean(gap) if gap else math.nan, statistics.stdev(gap) if len(gap) > 1 else math.nan, len(gap))
    vs_low, vs_high = difference_interval(ours, paper)
    found = interval_evidence(vs_low, vs_high, -tolerance, tolerance, f"ours {text} against the paper's {paper.mean:+.2f}", len(gap))
    sign = ("" if found.holds or math.isnan(low) else "; a tie where the paper reports a lead" if low <= 0 <= high and paper.mean > 0
            else "; HAN ahead where the paper reports GAT ahead" if high < 0 < paper.mean else "")
    return Evidence(found.holds, found.text + sign, found.undecided)


def finding_numbers(t: Tables) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text."""
    long = t.main
    counts = tally(long.verdict)
    complete = lambda g: len(g) >= t.params["ablation_seeds"]  # noqa: E731  (a gain over every seed of the profile)
    spreads = [f"{d} {min(means):.1f}–{max(means):.1f}" for d, means in t.features.items()
               if not any(math.isnan(m) for m in means)]
    return {
        "han_vs_gat_reproduced": f"{counts['reproduced']} of {sum(counts.values())}",
        "han_vs_gat_differ": str(counts["differ"]),
        "han_vs_gat_undecided": str(counts["not decided"]),
        "han_vs_gat_unrun": str(int((long.verdict == Cell.NOT_RUN).sum())),
        "han_vs_gat_feature_spread": "; ".join(spreads) or "not run yet",
        "han_vs_gat_ablation_gains": "; ".join(
            f"{name.removeprefix('without ')}: " + ", ".join(f"{d} {statistics.fmean(g):+.1f}" for d, g in gains.items() if complete(g))
            for name, gains in t.gains.items() if any(complete(g) for g in gains.values())) or "not run yet",
    }
