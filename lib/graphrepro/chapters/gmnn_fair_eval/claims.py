"""gmnn-fair-eval: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.gmnn_fair_eval.searches import available
from graphrepro.chapters.gmnn_fair_eval.paper import CHAPTER, UNAVAILABLE
from graphrepro.chapters.gmnn_fair_eval.tables import Tables, _seed_scores, fold_gaps
from graphrepro.verdicts import Cell, Claim, Headline, compare, effect_evidence, tally


# the answer a page opens with: the paper cell a reader sees first, and the paper's headline sentence
# decided by the chapter's claims whose ids end so
HEADLINE = "Table 4, cora, dense, GCN+GMNN"
HEADLINE_CLAIM = Headline("Under k-fold model selection and assessment, GMNN on top of a GNN improves on that GNN",
                          "-gmnn-gain")


def finding_numbers(t: Tables) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the paper-vs-ours tables, the significance
    tests and the fold scores the page shows, and the public-split runs."""
    long, params = pd.concat([t.sparse, t.dense], ignore_index=True), t.params
    tallied = tally(long.verdict)
    missed = long[long.verdict.str.startswith(Cell.DIFFERS)]
    spreads = []
    seeds, folds = _seed_scores(t.public), t.scores
    for dataset in available(params):
        one = seeds[(seeds.dataset == dataset) & (seeds.row == "GCN")]
        many = folds[(folds.dataset == dataset) & (folds.kind == "sparse_balanced") & (folds.row == "GCN")]
        if len(one) > 1 and len(many) > 1:
            spreads.append(f"{dataset} {one.acc.std(ddof=0):.1f} over {len(one)} seeds on the public split, "
                           f"{many.acc.std(ddof=0):.1f} over {len(many)} folds")
    counts = t.counts
    gmnn = counts[counts["first"].str.contains("GMNN") | counts.second.str.contains("GMNN")]
    tested = t.tested.dropna(subset=["p"])
    differ = tested[(tested.p < 0.05) != tested.paper.isin(["*", "**", "***"])]
    return {
        "gmnn_fair_eval_reproduced": f"{tallied['reproduced']} of {sum(tallied.values())}",
        "gmnn_fair_eval_undecided": str(tallied["not decided"]),
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


def paper_cells(t: Tables) -> list[dict[str, Any]]:
    """Every number of the paper's Tables 3 and 4 beside ours, for the Verdicts page (nothing is trained here)."""
    return [row for long, number in ((t.sparse, 3), (t.dense, 4)) for row in report.cell_rows(
        CHAPTER, long, lambda r, n=number: f"Table {n}, {r.dataset}, {r.kind}, {r.model}",
        t.params["tolerance"], "paper-vs-ours", runs="folds")]


def headline(t: Tables) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: how far one split's accuracy can land from another's,
    the range of a model's fold accuracies."""
    ranges = {}
    for (dataset, kind, row), cell in (t.scores.groupby(["dataset", "kind", "row"]) if len(t.scores) else []):
        if len(cell) > 1 and not row.startswith("GMNN "):
            lo, hi = cell.acc.min(), cell.acc.max()
            ranges[(dataset, kind, row)] = (hi - lo, f"{dataset}, {kind.replace('_', ' ')}, {row}: one fold's test accuracy "
                                                     f"anywhere from {lo:.1f} to {hi:.1f} over {len(cell)} folds")
    return report.headline_row(CHAPTER, "a single split", "protocol", ranges)


def _slug(*words: str) -> str:
    """Words as an id: lower case, '-' between."""
    return "-".join(w.lower().replace("_", "-").replace("+", "-").replace(" ", "-").replace(">", "over") for w in words)


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims per dataset and training set (unavailable where the data cannot be had), decided
    from the records (nothing is trained here): an effect on the 95% interval of its per-fold differences
    (``verdicts.effect_evidence``); a gain the paper calls significant by the paper's own one-sided paired t-test."""
    params, scores, ready, rows = t.params, t.scores, set(available(t.params)), []
    for dataset in params["datasets"]:
        missing = "" if dataset in ready else UNAVAILABLE.get(dataset, "not obtainable here")
        for kind in params["kinds"]:
            gaps = fold_gaps(scores, dataset, kind, "GCN", "MLP")
            rows.append(Claim(_slug(dataset, kind, "graph-helps"), f"{dataset}, {kind}: the graph helps (GCN above MLP)",
                              lambda g=gaps: effect_evidence("GCN − MLP", g, 0.0, unit="fold"), unavailable=missing))
    for _, r in t.tested.iterrows():
        id = _slug(r.dataset, r.kind, r.comparison.split(" > ")[-1], "gmnn-gain")
        if r.kind != "dense":
            rows.append(compare(id, f"{r.dataset}, {r.kind}: {r.comparison} significantly (p < 0.05)", [r["gain (points)"], r.p],
                                lambda gain, p: p < 0.05, "gain {:.2f} points, p = {:.3g}"))
        else:
            rows.append(Claim(id, f"{r.dataset}, {r.kind}: {r.comparison} by less than a point, or not at all",
                              lambda r=r: effect_evidence("gain", r.gaps, -math.inf, 1.0, unit="fold")))
    return rows
