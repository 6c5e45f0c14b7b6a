"""gmnn-fair-eval: tables built from the records."""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy as np
import pandas as pd

from graphrepro import cells
from graphrepro.chapters.gmnn_fair_eval.configs import chapter_records, run_public
from graphrepro.chapters.gmnn_fair_eval.paper import (
    ALL_DATASETS,
    PAIRS,
    PAPER,
    PAPER_RUNS,
    PAPER_RUNS_PER_FOLD,
    PAPER_STARS,
    PUBLIC_PAPER,
    ROWS,
    SEARCH_SEED,
    UNAVAILABLE,
)
from graphrepro.chapters.gmnn_fair_eval.searches import available, table_of
from graphrepro.experiments import fair_eval
from graphrepro.report import fmt
from graphrepro.verdicts import Cell, Estimate, difference_interval, judge_cell, paired


def public_table(public: pd.DataFrame, assessment: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Each model on the public split (mean ± std over seeds) beside its k-fold estimate on sparse balanced
    training sets (20 per class, as the public split), and GMNN's published public-split number."""
    folds = fold_scores(assessment)
    runs = _seed_scores(public)
    rows = []
    for dataset in available(params):
        for label in ("MLP", "GCN", "GCN+GMNN"):
            seeds = runs[(runs.dataset == dataset) & (runs.row == label)] if len(runs) else runs
            fair = folds[(folds.dataset == dataset) & (folds.kind == "sparse_balanced") & (folds.row == label)] if len(folds) else folds
            paper = PUBLIC_PAPER[dataset] if label == "GCN+GMNN" else (math.nan, math.nan)
            rows.append({"dataset": dataset, "model": label,
                         "public split (ours)": fmt(seeds.acc.mean(), seeds.acc.std(ddof=0)) if len(seeds) else Cell.NOT_RUN,
                         "public split (GMNN's README)": fmt(*paper) if not math.isnan(paper[0]) else "",
                         "10-fold, sparse balanced (ours)": fmt(fair.acc.mean(), fair.acc.std(ddof=0)) if len(fair) else Cell.NOT_RUN})
    return pd.DataFrame(rows).set_index(["dataset", "model"]) if rows else pd.DataFrame()


def _seed_scores(public: pd.DataFrame) -> pd.DataFrame:
    """Test accuracy per public-split seed, in ``fold_scores``' form (a seed in place of a fold)."""
    return fold_scores(public.assign(fold=public.seed) if len(public) else public)


WITH_X = " (x in p)"  # the rows of GMNN whose p reads the node features too; the others are GMNN's public code


def _row_label(model: str, gmnn: bool, features: bool = False) -> str:
    return (f"{model}+GMNN" + (WITH_X if features else "")) if gmnn else model


def _gmnn_rows(which: str) -> list[str]:
    """A table's rows for the GMNN variant whose p reads the node features (trained on the sparse sets only)."""
    return ["GMNN p" + WITH_X, "GMNN q" + WITH_X, "GCN+GMNN" + WITH_X] if which == "sparse" else []


SCORE_COLUMNS = ["dataset", "kind", "row", "fold", "acc"]


def run_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Test accuracy (a fraction) per run under each (dataset, kind, row, fold) it counts for: GMNN's runs count for
    p, q and best; the variant whose p reads the features in rows marked ``WITH_X``."""
    if not len(runs):
        return pd.DataFrame(columns=SCORE_COLUMNS)
    runs = runs.assign(gmnn=runs.get("gmnn_loops", pd.Series(np.nan, index=runs.index)).notna(),
                       features=runs["gmnn_p_features"].eq(True) if "gmnn_p_features" in runs else False)
    frames = []
    for (dataset, kind, model, gmnn, features, fold), group in runs.groupby(["dataset", "kind", "model", "gmnn", "features", "fold"]):
        row, mark = _row_label(model, gmnn, features), WITH_X if features else ""
        parts = [(row, group.test_acc)]
        if gmnn and kind != "dense":
            parts += [("GMNN p" + mark, group.test_p_acc), ("GMNN q" + mark, group.test_q_acc)]
        frames += [pd.DataFrame({"dataset": dataset, "kind": kind, "row": label, "fold": fold, "acc": accs.to_numpy()})
                   for label, accs in parts]
    return pd.concat(frames, ignore_index=True)


def fold_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Test accuracy in percent per (dataset, kind, row, fold): the mean over that fold's runs (``run_scores``)."""
    scores = run_scores(runs)
    if not len(scores):
        return scores
    means = scores.groupby(SCORE_COLUMNS[:-1], sort=False).acc.mean()
    return (100 * means).reset_index()


def runs_effect(runs: pd.DataFrame) -> pd.DataFrame:
    """What the paper's runs per fold would change, estimated from ours: per cell with a paper number, the runs'
    standard deviation within a fold (pooled over folds), that of the fold means, that of the fold means projected
    to ``PAPER_RUNS_PER_FOLD`` runs (the folds' own variance, what is left of the fold means' variance once the
    runs' share, within / runs, is taken out, plus within / 20), and the half-width of the 95% interval of
    ours − paper (``difference_interval``) now and so projected; in points."""
    scores = run_scores(runs)
    rows = []
    for (dataset, kind, row), cell in scores.groupby(SCORE_COLUMNS[:3], sort=False):
        paper = PAPER.get((row.removesuffix(WITH_X), dataset, kind))
        per_fold = cell.groupby("fold").acc
        runs_per_fold = int(per_fold.size().min())
        if paper is None or runs_per_fold < 2 or per_fold.ngroups < 2:
            continue
        within, means = 100**2 * float(per_fold.var(ddof=1).mean()), 100 * per_fold.mean()
        spread = float(means.std(ddof=1))
        projected = math.sqrt(max(spread**2 - within / runs_per_fold, 0.0) + within / PAPER_RUNS_PER_FOLD)
        half = [np.diff(difference_interval(Estimate(float(means.mean()), sd, len(means)), Estimate(*paper, PAPER_RUNS)))[0] / 2
                for sd in (spread, projected)]
        rows.append({"cell": f"{dataset}, {kind.replace('_', ' ')}, {row}", "sd within a fold": math.sqrt(within),
                     "sd over folds": spread, f"sd at {PAPER_RUNS_PER_FOLD} runs": projected,
                     "interval ±": half[0], f"interval ± at {PAPER_RUNS_PER_FOLD} runs": half[1]})
    return pd.DataFrame(rows).set_index("cell").round(2) if rows else pd.DataFrame()


def runs_note(effect: pd.DataFrame) -> str:
    """``runs_effect`` in words: by how much 20 runs per fold would narrow the intervals, at most and for the median cell."""
    if not len(effect):
        return "an amount not estimable here (it needs two runs of ours in every fold)"
    now, then = effect["interval ±"], effect[f"interval ± at {PAPER_RUNS_PER_FOLD} runs"]
    narrower = 1 - then / now
    most = narrower.idxmax()
    return (f"at most {narrower.max():.0%} ({most}: ±{now[most]:.2f} → ±{then[most]:.2f} points) and "
            f"{narrower.median():.0%} for the median cell")


def _estimate(cell: pd.DataFrame) -> Estimate:
    """A cell's fold means as an ``Estimate`` (sample standard deviation over folds)."""
    return Estimate(float(cell.acc.mean()), float(cell.acc.std(ddof=1)), len(cell)) if len(cell) else Estimate(math.nan)


def table(runs: pd.DataFrame, params: dict[str, Any], which: str, scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 3 (``sparse``) or 4 (``dense``), long form: paper and ours (mean of fold means, std over
    folds); datasets not obtainable here keep their paper numbers in rows marked unavailable. ``scores``:
    ``fold_scores(runs)`` where already computed."""
    scores = fold_scores(runs) if scores is None else scores
    kinds = [k for k in params["kinds"] if table_of(k) == which]
    labels = (["MLP", "GCN", "FAGCN", "GMNN p", "GMNN q", "GCN+GMNN", "FAGCN+GMNN"] if which == "sparse"
              else [_row_label(m, g) for m, g in ROWS[which]]) + _gmnn_rows(which)
    rows = []
    for dataset in list(params["datasets"]) + [d for d in ALL_DATASETS if d not in fair_eval.DATASETS]:
        missing = UNAVAILABLE.get(dataset) or ("" if dataset in available(params) else "not obtainable here")
        for kind in kinds:
            for label in labels:
                cell = scores[(scores.dataset == dataset) & (scores.kind == kind) & (scores.row == label)] if len(scores) else scores
                paper = PAPER.get((label.removesuffix(WITH_X), dataset, kind), (math.nan, math.nan))
                if (math.isnan(paper[0]) or label.endswith(WITH_X) and missing) and not len(cell):
                    continue
                ours = cell.acc.mean() if len(cell) else math.nan
                std = cell.acc.std(ddof=0) if len(cell) > 1 else math.nan
                rows.append({"dataset": dataset, "kind": kind, "model": label, "paper": fmt(*paper),
                             "ours": "–" if missing else fmt(ours, std), "folds": len(cell), "why": missing,  # the page: once, in the caption
                             "verdict": Cell.UNAVAILABLE if missing else judge_cell(_estimate(cell), Estimate(*paper, PAPER_RUNS), params["tolerance"], len(cell)),
                             "paper_mean": paper[0], "mean": ours, "std": std})
    return pd.DataFrame(rows)


def fold_gaps(scores: pd.DataFrame, dataset: str, kind: str, first: str, second: str) -> list[float]:
    """Row ``first`` minus row ``second`` (``fold_scores``' test accuracy, points) on each fold both have."""
    if not len(scores):
        return []
    pick = lambda label: scores[(scores.dataset == dataset) & (scores.kind == kind) & (scores.row == label)].set_index("fold").acc  # noqa: E731
    return paired(pick(first), pick(second))


def significance(runs: pd.DataFrame, params: dict[str, Any], scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """GMNN (best of p and q) against its base over folds: one-sided paired t-test, stars as the paper's; with the
    per-fold gains (``gaps``) the claims decide on."""
    from scipy.stats import ttest_1samp  # heavy (half a second): only when a page tests significance

    scores = fold_scores(runs) if scores is None else scores
    rows = []
    for dataset in available(params):
        for kind in params["kinds"]:
            for model, gmnn in ROWS[table_of(kind)]:
                if not gmnn:
                    continue
                gaps = fold_gaps(scores, dataset, kind, _row_label(model, True), model)
                p = float(ttest_1samp(gaps, 0.0, alternative="greater").pvalue) if len(gaps) > 1 else math.nan  # = paired t
                stars = "" if math.isnan(p) else "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "n.s."
                rows.append({"dataset": dataset, "kind": kind, "comparison": f"{model}+GMNN > {model}", "folds": len(gaps),
                             "gain (points)": statistics.fmean(gaps) if gaps else math.nan, "gaps": gaps,
                             "p": p, "ours": stars, "paper": PAPER_STARS.get((dataset, kind) if kind != "dense" else (dataset, kind, model), "")})
    return pd.DataFrame(rows)


def significance_display(sig: pd.DataFrame) -> pd.DataFrame:
    """The significance table as the page shows it: one line of words per comparison, ours and the paper's stars."""
    if not len(sig):
        return pd.DataFrame(columns=["ours", "paper"])
    words = sig.apply(lambda r: Cell.NOT_RUN if math.isnan(r["gain (points)"]) else
                      f"{r['gain (points)']:+.2f} points over {r.folds} folds, p = {r.p:.3g} {r.ours}", axis=1)
    index = sig.dataset + ", " + sig.kind.str.replace("_", " ") + ": " + sig.comparison
    return pd.DataFrame({"ours": words.values, "paper": sig.paper.replace("", "n.s.").values}, index=pd.Index(index, name="GMNN over its base"))


def caption(dataset: str) -> str:
    """A sparse-table caption: why a paper-only dataset has no numbers of ours (nothing for the others)."""
    return f"{UNAVAILABLE[dataset]} (the paper's numbers only)" if dataset in UNAVAILABLE else ""


def flip_counts(runs: pd.DataFrame, params: dict[str, Any], scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """For the pairs the claims compare (graph or not, GMNN or not, GCN or FAGCN): the pair in the order of their
    means, and in how many of the folds that order is reversed."""
    scores = fold_scores(runs) if scores is None else scores
    rows = []
    for (dataset, kind), cell in scores[~scores.row.isin(["GMNN p", "GMNN q"]) & ~scores.row.str.endswith(WITH_X)].groupby(["dataset", "kind"]):
        wide = cell.pivot(index="fold", columns="row", values="acc").dropna()
        for a, b in PAIRS:
            if a in wide and b in wide:
                ahead = wide[a].mean() >= wide[b].mean()
                first, second = (a, b) if ahead else (b, a)
                rows.append({"dataset": dataset, "kind": kind, "first": first, "second": second,
                             "flipped": int((wide[first] < wide[second]).sum()), "folds": len(wide)})
    return pd.DataFrame(rows, columns=["dataset", "kind", "first", "second", "flipped", "folds"])


def flips(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """``flip_counts`` for reading: "GCN above MLP", "1 of 10"."""
    counts = flip_counts(runs, params)
    return pd.DataFrame({"dataset": counts.dataset, "kind": counts.kind.str.replace("_", " "),
                         "on average": counts["first"] + " above " + counts.second,
                         "folds where it flips": counts.flipped.astype(str) + " of " + counts.folds.astype(str)})


def cost_table(params: dict[str, Any]) -> pd.DataFrame:
    """Trainings recorded and their summed single-thread time per table and part (search, runs, GMNN runs)."""
    _, runs = chapter_records(params)
    if not len(runs):
        return pd.DataFrame(columns=["trainings", "CPU hours (sum of records)"])
    runs = runs.assign(table=np.select([runs.kind == "dense", runs.kind == "public"], ["Table 4 (dense)", "public split"], "Table 3 (sparse)"),
                       part=np.where(runs.seed == SEARCH_SEED, "search", np.where(runs.get("gmnn_loops", pd.Series(np.nan, index=runs.index)).notna(), "GMNN runs", "runs")))
    summary = runs.groupby(["table", "part"]).agg(trainings=("key", "count"), seconds=("wall_s", "sum"))
    summary["CPU hours (sum of records)"] = (summary.pop("seconds") / 3600).round(2)
    return summary


class Tables(cells.Tables):
    """The tables the claims, findings, headline and Verdicts page read, over one frame of assessment records
    grouped once into fold scores."""

    scores = cells.table("Test accuracy per dataset, kind, row and fold", lambda t: fold_scores(t.runs))
    sparse = cells.table("Table 3 (the sparse training sets), paper and ours",
                         lambda t: table(t.runs, t.params, "sparse", t.scores))
    dense = cells.table("Table 4 (the dense training set), paper and ours", lambda t: table(t.runs, t.params, "dense", t.scores))
    tested = cells.table("GMNN against its base: paired t-tests over folds", lambda t: significance(t.runs, t.params, t.scores))
    counts = cells.table("The claims' pairs: how often their order flips", lambda t: flip_counts(t.runs, t.params, t.scores))
    public = cells.table("The public-split records (nothing trained)", lambda t: run_public(t.params, train=False))