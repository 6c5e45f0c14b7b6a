"""gmnn-fair-eval: the budget study: whether the estimates and the paper-vs-ours gaps move with the number of
distinct settings each fold's search tries (``BUDGET_CELLS``, ``budgets``, ``budget_runs`` runs per fold)."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import pandas as pd

from graphrepro import progress, search
from graphrepro.chapters.gmnn_fair_eval.paper import BUDGET_CELLS, CHAPTER, PAPER
from graphrepro.chapters.gmnn_fair_eval.searches import Cell, available, base_config, choose, key, recorded, replay
from graphrepro.experiments import fair_eval
from graphrepro.grid import default_workers, fan_out, run_grid
from graphrepro.report import fmt
from graphrepro.train import resolve_device
from graphrepro.verdicts import paired_interval


def cells(params: dict[str, Any]) -> list[Cell]:
    """The budget study's (dataset, kind, model, fold) whose data can be had (none unless ``budget_study``)."""
    ready = set(available(params)) if params["budget_study"] else set()
    return [(d, k, m, f) for d, k, m in BUDGET_CELLS if d in ready for f in range(params["folds"])]


def search_cell(params: dict[str, Any], cell: Cell, train: bool) -> tuple[dict[int, search.Choice], list[dict[str, Any]]]:
    """One search as long as the largest of ``params["budgets"]``, and a choice per budget among its first that
    many distinct settings: the smaller budgets' searches are this one's beginning (the same seeded sampler)."""
    base, distinct, records, asked = replay(params, cell, max(params["budgets"]), train, show=False)
    return {n: choose(base, distinct, n, records) for n in params["budgets"]}, asked


def choices(params: dict[str, Any], train: bool = True) -> dict[tuple[Cell, int], search.Choice]:
    """Each budget cell's choice at each budget; with ``train`` the incomplete searches complete first, fanned out
    over the grid's workers as ``search_all``'s are."""
    every = cells(params)
    chosen = {(cell, n): choice for cell in every for n, choice in search_cell(params, cell, False)[0].items()}
    todo = list(dict.fromkeys(cell for (cell, _), choice in chosen.items() if choice.setting is None)) if train else []
    if not todo:
        return chosen
    workers = min(default_workers(), len(todo)) if resolve_device(params["device"]).type != "cuda" else 1
    with progress.grid_bar("budget searches", len(todo), len(every) - len(todo), unit="cell") as update:
        for cell, found in fan_out([partial(_searched, params, cell) for cell in todo], workers):
            chosen.update({(cell, n): choice for n, choice in found.items()})
            update(1)
    return chosen  # in the cells' order


def _searched(params: dict[str, Any], cell: Cell) -> tuple[Cell, dict[int, search.Choice]]:
    return cell, search_cell(params, cell, train=True)[0]


def configs(params: dict[str, Any], chosen: dict[tuple[Cell, int], search.Choice]) -> dict[tuple[Cell, int], list[dict[str, Any]]]:
    """The runs of each budget's chosen setting (seeds 1 .. ``budget_runs``), by cell and budget."""
    return {(cell, n): [{**base_config(params, *cell), **choice.setting, "seed": s} for s in range(1, params["budget_runs"] + 1)]
            for (cell, n), choice in chosen.items() if choice.setting is not None}


def run(params: dict[str, Any]) -> pd.DataFrame:
    """Complete the budget study's searches, then train its runs; their records."""
    planned = [c for runs in configs(params, choices(params, train=True)).values() for c in runs]
    unique = list({key(c): c for c in planned}.values())
    return run_grid(CHAPTER, fair_eval.EXPERIMENT.name, unique, params["device"], desc="budget study") if unique else pd.DataFrame()


NOT_RUN = pd.DataFrame({"": ["no records under these parameters (`-p budget_study true` trains the study)"]}, index=[""])


def frame(params: dict[str, Any]) -> pd.DataFrame:
    """Per dataset, kind, budget and fold: the mean test accuracy of the chosen setting's runs (× 100) and the
    chosen setting's store key, from the records (nothing is trained; a fold with a run missing is left out)."""
    planned = configs(params, choices(params, train=False))
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


def note(frame: pd.DataFrame, params: dict[str, Any]) -> str:
    """The study in words, one clause per cell: how far the largest budget moves the estimate from the smallest
    (``shifts``) and the gap to the paper at both (``table``)."""
    low, high = min(params["budgets"]), max(params["budgets"])
    parts = []
    gaps, moved = (table(frame, params), shifts(frame, params)) if len(frame) else (pd.DataFrame(), pd.DataFrame())
    for cell in dict.fromkeys(gaps.index.get_level_values(0)):
        if (cell, high) not in gaps.index or (cell, f"{low} → {high}") not in moved.index:
            continue
        shift = moved.loc[(cell, f"{low} → {high}")]
        noise = "inside the noise" if shift["moves"].startswith("no") else "a move" if shift["moves"] == "yes" else "no interval"
        parts.append(f"on {cell}, going from {low} to {high} settings moves the estimate by {shift['shift (points)']:+.2f} "
                     f"points (95% interval {shift['95% interval']}, over {shift['folds']} folds: {noise}), and the gap to the "
                     f"paper goes from {gaps.loc[(cell, low), 'ours − paper']:+.2f} to {gaps.loc[(cell, high), 'ours − paper']:+.2f}")
    return "; ".join(parts) if parts else "not measured under these parameters (`-p budget_study true` trains the study)"
