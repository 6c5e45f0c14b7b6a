"""gmnn-fair-eval: the budget study: whether the estimates and the paper-vs-ours gaps move with the number of
distinct settings each fold's search tries (``BUDGET_CELLS``, ``budgets``, ``budget_runs`` runs per fold)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from graphrepro.chapters.gmnn_fair_eval.configs import budget_choices, budget_configs, key, recorded
from graphrepro.chapters.gmnn_fair_eval.paper import PAPER
from graphrepro.report import fmt
from graphrepro.verdicts import paired_interval


NOT_RUN = pd.DataFrame({"": ["no records under these parameters (`-p budget_study true` trains the study)"]}, index=[""])


def frame(params: dict[str, Any]) -> pd.DataFrame:
    """Per dataset, kind, budget and fold: the mean test accuracy of the chosen setting's runs (× 100) and the
    chosen setting's store key, from the records (nothing is trained; a fold with a run missing is left out)."""
    planned = budget_configs(params, budget_choices(params, train=False))
    records = recorded([c for runs in planned.values() for c in runs])
    by_key = records.drop_duplicates("key").set_index("key").test_acc if len(records) else pd.Series(dtype=float)
    rows = []
    for ((dataset, kind, model, fold), n), runs in planned.items():
        accs = [by_key[key(c)] for c in runs if key(c) in by_key.index]
        if len(accs) == len(runs):
            rows.append({"dataset": dataset, "kind": kind, "model": model, "budget": n, "fold": fold,
                         "acc": 100 * sum(accs) / len(accs), "setting": key({**runs[0], "seed": 0})})
    return pd.DataFrame(rows, columns=["dataset", "kind", "model", "budget", "fold", "acc", "setting"])


def _label(dataset: str, kind: str, model: str) -> str:
    return f"{dataset}, {kind.replace('_', ' ')}, {model}"


def table(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per cell and budget: our estimate (mean ± std over folds), the paper's, the gap, and in how many folds
    the chosen setting differs from the smallest budget's."""
    rows = []
    for (dataset, kind, model), cell in frame.groupby(["dataset", "kind", "model"], sort=False):
        first = cell[cell.budget == min(params["budgets"])].set_index("fold").setting
        paper = PAPER[(model, dataset, kind)]
        for n, part in cell.groupby("budget"):
            same = part.set_index("fold").setting.reindex(first.index)
            rows.append({"cell": _label(dataset, kind, model), "budget": n, "folds": len(part),
                         "ours": fmt(part.acc.mean(), part.acc.std(ddof=1)), "paper": fmt(*paper),
                         "ours − paper": round(part.acc.mean() - paper[0], 2),
                         "choice differs": f"{int((same != first).sum())} of {len(first)}"})
    return pd.DataFrame(rows).set_index(["cell", "budget"]) if rows else NOT_RUN


def tables(frame: pd.DataFrame, params: dict[str, Any]) -> list[pd.DataFrame]:
    """What the page shows of the study: ``table`` and ``shifts``, or one line saying nothing is recorded."""
    return [table(frame, params), shifts(frame, params)] if len(frame) else [NOT_RUN]


def shifts(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per cell: how far the estimate moves from the smallest budget to each larger one, paired over folds,
    with its 95% interval, and whether that interval excludes no move."""
    rows = []
    low = min(params["budgets"])
    for (dataset, kind, model), cell in frame.groupby(["dataset", "kind", "model"], sort=False):
        wide = cell.pivot(index="fold", columns="budget", values="acc")
        for n in sorted(b for b in wide.columns if b != low):
            both = wide[[low, n]].dropna()
            mean, lo, hi = paired_interval(list(both[n] - both[low]))
            moved = "–" if math.isnan(lo) else "yes" if lo > 0 or hi < 0 else "no (inside the noise)"
            rows.append({"cell": _label(dataset, kind, model), "budgets": f"{low} → {n}", "folds": len(both),
                         "shift (points)": round(mean, 2), "95% interval": "–" if math.isnan(lo) else f"[{lo:+.2f}, {hi:+.2f}]",
                         "moves": moved})
    return pd.DataFrame(rows).set_index(["cell", "budgets"]) if rows else NOT_RUN
