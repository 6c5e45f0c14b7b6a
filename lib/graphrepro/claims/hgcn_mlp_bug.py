"""Chapter 1: Katsman & Gilbert, "Shedding Light on Problems with Hyperbolic Graph Learning", Table 1."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from graphrepro import chapters, report, store
from graphrepro.chapters import DEVICE, PRECISION, Page, Param, same
from graphrepro.claims import hgcn_tuning as tuning
from graphrepro.data.registry import dataset_status
from graphrepro.experiments import hgcn
from graphrepro.metrics import METRICS
from graphrepro.report import claim_row, fmt, mean_std, verdict

CHAPTER = tuning.CHAPTER

HGCN_TASKS = ("disease_lp/lp", "disease_nc/nc", "airport/lp", "airport/nc")
GAMMAS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.4, 0.6, 0.8, 1.0)

PAGE = Page(
    "hgcn-mlp-bug",
    "notebooks/01_hgcn_mlp_bug.py",
    "Shedding light on hyperbolic graph learning",
    (
        DEVICE,
        PRECISION,
        Param("seeds", int, "training seeds per configuration (seeds 0 .. n-1)", {"smoke": 1, "standard": 5, "paper": 5}, minimum=1, maximum=100),
        Param("max_epochs", int, "epoch cap (HGCN: 5000, with patience 100 after 100 epochs)", {"smoke": 25, "standard": 5000, "paper": 5000}, minimum=1, maximum=100_000),
        Param("tasks", str, "dataset/task pairs of Table 1", same(list(HGCN_TASKS)), HGCN_TASKS, many=True),
        Param("tolerance", float, "largest |ours - paper| in points that still counts as reproduced", same(2.0), minimum=0, maximum=100),
        Param("gammas", float, "γ values of the Tree1111_γ sweep (Figure 2)",
              {"smoke": [0.0, 0.4], "standard": list(GAMMAS), "paper": list(GAMMAS)}, minimum=0, maximum=1, many=True),
        Param("delta_samples", int, "random quadruples for Gromov δ of graphs too large for the exact count",
              {"smoke": 20_000, "standard": 500_000, "paper": 2_000_000}, minimum=1, maximum=100_000_000),
        Param("ricci_edges", int, "edges per graph for the Ollivier–Ricci histograms (0: every edge)",
              {"smoke": 200, "standard": 0, "paper": 0}, minimum=0, maximum=10_000_000),
        Param("search_layers", int, "model selection grid: layer counts (HGCN's counting)",
              {"smoke": [2], "standard": [2], "paper": [2, 3]}, (2, 3), many=True),
        Param("search_act", str, "model selection grid: activations",
              {"smoke": ["relu"], "standard": ["relu"], "paper": ["relu", "none"]}, ("relu", "none"), many=True),
        Param("search_dropout", float, "model selection grid: dropout rates",
              {"smoke": [0.0, 0.5], "standard": [0.0, 0.5], "paper": [0.0, 0.2, 0.5]}, minimum=0, maximum=1, below_maximum=True, many=True),
        Param("search_weight_decay", float, "model selection grid: weight decays",
              {"smoke": [0.0], "standard": [0.0, 1e-3], "paper": [0.0, 5e-4, 1e-3]}, minimum=0, maximum=1, many=True),
        Param("search_curvature", str, "model selection grid for HNN and HGCN: curvature fixed at 1 or trainable",
              same(["fixed", "trainable"]), ("fixed", "trainable"), many=True),
    ),
    module=__name__,
)
EXPERIMENTS = (hgcn.EXPERIMENT,)

# Katsman & Gilbert, Table 1: (model, variant) -> task -> (mean, std) of test ROC AUC (LP) or F1 (NC), in
# percent. The MLP rows are theirs (5 seeds); the others are earlier papers' numbers (Chami et al. 2019,
# Chen et al. 2021) that the table reprints. "original" marks the rows run with HGCN's code as released.
PAPER: dict[tuple[str, str], dict[str, tuple[float, float]]] = {
    ("MLP", "original"): {"disease_lp/lp": (72.6, 0.6), "disease_nc/nc": (28.8, 2.5), "airport/lp": (89.8, 0.5), "airport/nc": (68.6, 0.6)},
    ("MLP", "debugged"): {"disease_lp/lp": (98.7, 0.2), "disease_nc/nc": (80.3, 0.7), "airport/lp": (96.4, 0.1), "airport/nc": (95.9, 0.8)},
    ("GCN", "original"): {"disease_lp/lp": (64.7, 0.5), "disease_nc/nc": (69.7, 0.4), "airport/lp": (89.3, 0.4), "airport/nc": (81.4, 0.6)},
    ("GAT", "original"): {"disease_lp/lp": (69.8, 0.3), "disease_nc/nc": (70.4, 0.4), "airport/lp": (90.5, 0.3), "airport/nc": (81.5, 0.3)},
    ("SAGE", "original"): {"disease_lp/lp": (65.9, 0.3), "disease_nc/nc": (69.1, 0.6), "airport/lp": (90.4, 0.5), "airport/nc": (82.1, 0.5)},
    ("SGC", "original"): {"disease_lp/lp": (65.1, 0.2), "disease_nc/nc": (69.5, 0.2), "airport/lp": (89.8, 0.3), "airport/nc": (80.6, 0.1)},
    ("HNN", "none"): {"disease_lp/lp": (75.1, 0.3), "disease_nc/nc": (41.0, 1.8), "airport/lp": (90.8, 0.2), "airport/nc": (80.5, 0.5)},
    ("HGCN", "none"): {"disease_lp/lp": (90.8, 0.3), "disease_nc/nc": (74.5, 0.9), "airport/lp": (96.4, 0.1), "airport/nc": (90.6, 0.2)},
}
ROWS = tuple(
    [(m, v) for m in ("MLP", "GCN", "GAT", "SAGE", "SGC") for v in ("original", "debugged")] + [("HNN", "none"), ("HGCN", "none")]
)
TASK_LABELS = {"disease_lp/lp": "Disease LP", "disease_nc/nc": "Disease NC", "airport/lp": "Airport LP", "airport/nc": "Airport NC"}
METRIC = {"lp": "roc", "nc": "f1"}

# Settings shared by every model in Table 1: HGCN's README settings (dim 16, 2 layers,
# lr 0.01, ReLU, no dropout or weight decay); disease LP without feature normalisation and airport
# with a trainable curvature for HNN and HGCN, as in the README's commands.
TASK_SETTINGS: dict[str, dict[str, Any]] = {
    "disease_lp/lp": {"normalize_feats": False, "c": 1.0},
    "airport/lp": {"normalize_feats": True, "c": None},
    "airport/nc": {"normalize_feats": True, "c": None},
    "disease_nc/nc": {"normalize_feats": True, "c": 1.0},  # HGCN's README command for Disease NC
}


def unavailable(task: str) -> str | None:
    """Why a task's dataset cannot be had here (None when it can)."""
    status = dataset_status(task.split("/")[0])
    return status["reason"] if status["status"] != "available" else None


def run_variant(model: str, variant: str, task: str) -> str:
    """The variant a table row trains: the ball projection exists only in Euclidean link prediction."""
    return variant if task.endswith("/lp") and model in hgcn.EUCLIDEAN else "none"


def table1_bases(params: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Every cell of Table 1 that the data allows: (model, variant, task, base config)."""
    cells = []
    for task in params["tasks"]:
        if unavailable(task):
            continue
        dataset, kind = task.split("/")
        for model, variant in ROWS:
            base = hgcn.make_config(
                dataset, kind, model, tuning.SEARCH_SEED, run_variant(model, variant, task),
                max_epochs=params["max_epochs"], precision=params["precision"], **TASK_SETTINGS[task],
            )
            cells.append((model, variant, task, base))
    return cells


def table1_configs(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every run behind Table 1 (see ``hgcn_tuning.configs``)."""
    return tuning.configs([cell[3] for cell in table1_bases(params)], params, runs)


def run_table1(params: dict[str, Any]) -> pd.DataFrame:
    """Search each cell on validation, then train every seed of the chosen and the README settings."""
    return tuning.run([cell[3] for cell in table1_bases(params)], params, "Table 1")


def _cell(runs: pd.DataFrame, task: str) -> tuple[float, float, int, int]:
    """Mean, std and count of a cell's test metric, and its number of records (diverged ones included)."""
    spec = METRICS[METRIC[task.split("/")[1]]]
    column = f"test_{spec.name}"
    values = runs[column] if column in runs else pd.Series(dtype=float)
    return (*mean_std(values, spec.scale), len(runs))


def table1(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Paper and ours (tuned, and with the README settings) side by side with a verdict per cell, long
    format: one row per model and task. The verdict compares the tuned runs with the paper."""
    rows = []
    cells = {(m, v, t): base for m, v, t, base in table1_bases(params)}
    for task in params["tasks"]:
        missing = unavailable(task)
        if missing:  # one row says why the whole column is empty
            rows.append({"model": "every model", "task": TASK_LABELS[task], "paper": "see above",
                         "ours": f"unavailable: {missing}", "README settings": "–", "chosen setting": "–",
                         "seeds": 0, "verdict": "unavailable", "paper_mean": math.nan, "ours_mean": math.nan,
                         "ours_std": math.nan, "readme_mean": math.nan, "readme_std": math.nan})
            continue
        for model, variant in ROWS:
            tuned, readme, setting = tuning.cell_runs(runs, cells[(model, variant, task)], params)
            ours, ours_std, n, records = _cell(tuned, task)
            plain, plain_std, _, _ = _cell(readme, task)
            paper, paper_std = PAPER.get((model, variant), {}).get(task, (math.nan, math.nan))
            rows.append({
                "model": row_label(model, variant),
                "task": TASK_LABELS[task],
                "paper": fmt(paper, paper_std),
                "ours": fmt(ours, ours_std),
                "README settings": fmt(plain, plain_std),
                "chosen setting": setting,
                "seeds": n,
                "verdict": verdict(ours, paper, params["tolerance"], records),
                "paper_mean": paper,
                "ours_mean": ours,
                "ours_std": ours_std,
                "readme_mean": plain,
                "readme_std": plain_std,
            })
    return pd.DataFrame(rows)


def table1_compact(long: pd.DataFrame) -> report.HTML:
    """Table 1 at a glance: models down, tasks across, paper | ours (tuned) | verdict in each cell; a task
    whose data cannot be had is named in the caption instead of filling a column."""
    missing = long[long.verdict == "unavailable"]
    caption = "; ".join(f"{r.task}: {r.ours}" for r in missing.itertuples())
    return report.verdict_grid(long[long.verdict != "unavailable"], "model", "task", caption)


def table1_display(long: pd.DataFrame) -> pd.DataFrame:
    """Table 1 in full: a row per task and model with the paper's cell, ours, and the verdict."""
    table = long.set_index(["task", "model"])[["paper", "ours", "verdict", "README settings", "chosen setting", "seeds"]]
    return table.rename(columns={"ours": "ours (tuned)", "README settings": "ours (README settings)"})


def table1_figure(long: pd.DataFrame) -> plt.Figure:
    """Ours, tuned and with the README settings (mean ± std over seeds), against the paper's numbers, per task."""
    long = long[long.verdict != "unavailable"]
    tasks = list(long.task.unique())
    height = 0.26 * long.model.nunique() + 1.2
    # one panel per row: the figure is narrow enough that a phone shows its labels at a legible size
    fig, axes = plt.subplots(len(tasks), 1, figsize=(5.2, height * len(tasks)), squeeze=False)
    for ax, task in zip(axes.flat, tasks):
        part = long[long.task == task]
        y = range(len(part))
        ax.errorbar(part.ours_mean, y, xerr=part.ours_std, fmt="o", label="ours (tuned)", color=sns.color_palette()[0])
        ax.errorbar(part.readme_mean, [v + 0.25 for v in y], xerr=part.readme_std, fmt="o", mfc="white",
                    label="ours (README settings)", color=sns.color_palette()[2])
        ax.scatter(part.paper_mean, y, marker="x", s=60, label="paper", color=sns.color_palette()[3], zorder=3)
        ax.set_yticks(list(y), part.model)
        ax.invert_yaxis()
        ax.set_title(task)
        ax.set_xlabel("test ROC AUC (%)" if task.endswith("LP") else "test F1 (%)")
    fig.tight_layout()
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(labels), frameon=False)
    return fig


def _mean(long: pd.DataFrame, model: str, task: str) -> float:
    match = long[(long.model == model) & (long.task == task)]
    return float(match.ours_mean.iloc[0]) if len(match) else math.nan


def chapter_configs(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every run the chapter shows, given the records (by default the store's): Table 1, the airport
    node-classification variants, the trees."""
    from graphrepro.claims import hgcn_trees

    runs = store.load(CHAPTER) if runs is None else runs
    return tuning.unique(table1_configs(params, runs) + hgcn_trees.nc_split_configs(params) + hgcn_trees.tree_configs(params, runs))


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {tuning.key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them, read once (nothing is trained)."""
    runs = store.load(CHAPTER)
    configs = chapter_configs(params, runs)
    return configs, tuning.subset(runs, configs)


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained)."""
    return chapter_records(params)[1]


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of the paper's Tables 1 and 2 beside ours, for the Verdicts page (nothing is trained here)."""
    from graphrepro.claims import hgcn_trees

    runs = recorded_runs(params) if runs is None else runs
    tol = params["tolerance"]
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    rows = report.cell_rows(CHAPTER, long, lambda r: f"Table 1, {r.task}, {r.model}", tol, "paper-vs-ours")
    curve = hgcn_trees.tree_curve(runs, params)
    tree = hgcn_trees.tree_table(curve, tol).reset_index()
    seeds = curve[curve["γ"] == 0.0].set_index("model").seeds.reindex(hgcn_trees.TREE_MODELS).fillna(0).to_list()
    tree = tree.assign(seeds=seeds, ours=tree["ours (tuned)"])
    return rows + report.cell_rows(CHAPTER, tree, lambda r: f"Table 2, Tree1111, {r.model}", tol, "tree1111")


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what the unit-ball projection cost the MLP."""
    runs = recorded_runs(params) if runs is None else runs
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    lifts = {task: (_mean(long, "MLP (original)", task), _mean(long, "MLP (debugged)", task))
             for task in [TASK_LABELS[t] for t in params["tasks"] if t.endswith("/lp")]}
    return report.headline_row(CHAPTER, "a buggy baseline", "paper-vs-ours", {
        task: (after - before, f"{task}: the MLP's test ROC AUC {before:.1f} with the projection, {after:.1f} without it")
        for task, (before, after) in lifts.items()})


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records of the profile's grids (nothing is trained here)."""
    from graphrepro.claims import hgcn_trees

    params = chapters.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    long = table1(runs[runs.dataset != "tree1111"] if len(runs) else runs, params)
    tol = params["tolerance"]
    rows = []
    lp_tasks = [TASK_LABELS[t] for t in params["tasks"] if t.endswith("/lp")]
    for task in lp_tasks:
        fixed, buggy = _mean(long, "MLP (debugged)", task), _mean(long, "MLP (original)", task)
        hyper = _mean(long, "HGCN", task)
        lift_known = not (math.isnan(fixed) or math.isnan(buggy))
        rows.append(claim_row(
            CHAPTER, f"{task}: removing the unit-ball projection lifts the MLP by more than {tol:g} points",
            (fixed - buggy > tol) if lift_known else None, f"MLP {buggy:.1f} → {fixed:.1f}",
        ))
        match_known = not (math.isnan(fixed) or math.isnan(hyper))
        rows.append(claim_row(
            CHAPTER, f"{task}: the debugged, feature-only MLP matches or beats HGCN (within {tol:g} points)",
            (fixed >= hyper - tol) if match_known else None, f"MLP {fixed:.1f} vs HGCN {hyper:.1f}",
        ))
    if len(runs):
        nc = hgcn_trees.nc_split_table(runs, params)
        gain, leaky, clean = nc.loc["MLP", ["leak adds (points)", "HGCN's split (leaky)", "stratified 70/15/15"]]
        rows.append(claim_row(
            CHAPTER, f"Airport NC: HGCN's leaky split inflates the MLP by more than {tol:g} points",
            None if math.isnan(gain) else bool(gain > tol), f"leaky {leaky} vs clean {clean}",
        ))
    curve = hgcn_trees.tree_curve(runs, params)
    at0 = curve[curve["γ"] == 0.0].set_index("model")["mean"]
    if len(at0) == len(hgcn_trees.TREE_MODELS):
        hyper, eucl = at0["HGCN"], max(at0["MLP"], at0["GCN"])
        rows.append(claim_row(
            CHAPTER, f"Tree1111: the hyperbolic model beats both Euclidean ones by more than {tol:g} points",
            None if at0.isna().any() else bool(hyper - eucl > tol), f"HGCN {hyper:.1f} vs best Euclidean {eucl:.1f}",
        ))
    high = curve[(curve.model == "MLP") & (curve["γ"] >= 0.4)]
    if len(high):
        worst = high["mean"].min(skipna=False)
        rows.append(claim_row(
            CHAPTER, f"Tree1111_γ: once γ ≥ 0.4 the feature-only MLP solves the task (ROC AUC ≥ {hgcn_trees.SOLVED:g})",
            None if math.isnan(worst) else bool(worst >= hgcn_trees.SOLVED), f"lowest MLP mean for γ ≥ 0.4: {worst:.1f}",
        ))
    return rows


def row_label(model: str, variant: str) -> str:
    """How a (model, variant) row is named in tables."""
    return model if variant == "none" else f"{model} ({variant})"


def paper_table(params: dict[str, Any]) -> pd.DataFrame:
    """Table 1's published numbers for the tasks of this run."""
    named = {row_label(*row): cells for row, cells in PAPER.items()}
    table = report.paper_table(named, list(params["tasks"]))
    return table.rename(columns=TASK_LABELS)


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
        rows.append({"key": key, "value": match.ours.iloc[0] if known else "not run"})
        rows.append({"key": f"{key}_readme", "value": match["README settings"].iloc[0] if len(match) else "not run"})
    return rows


def bench(seeds: int) -> list[dict[str, Any]]:
    """Seconds per run on Disease link prediction (standard settings) for the MLP and HGCN, one at a time and batched."""
    from graphrepro.bench import seconds_per_run

    rows = []
    for model in ("MLP", "HGCN"):
        variant = "debugged" if model in hgcn.EUCLIDEAN else "none"
        config = hgcn.make_config("disease_lp", "lp", model, 0, variant, **TASK_SETTINGS["disease_lp/lp"])
        rows.append(seconds_per_run(hgcn.EXPERIMENT, [{**config, "seed": s} for s in range(seeds)], f"{model}, disease_lp link prediction"))
    return rows


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's training, in the order ``python -m graphrepro train`` runs it (what the page trains)."""
    from graphrepro.claims import hgcn_trees

    return [("Table 1", lambda: run_table1(params)), ("Airport NC splits", lambda: hgcn_trees.run_nc_splits(params)),
            ("Tree1111_γ", lambda: hgcn_trees.run_trees(params))]
