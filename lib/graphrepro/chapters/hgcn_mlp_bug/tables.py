"""hgcn-mlp-bug: tables built from the records."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
import torch

from graphrepro import cells, geometry, report
from graphrepro.chapters.hgcn_mlp_bug import tuning
from graphrepro.chapters.hgcn_mlp_bug.configs import nc_plan, table1_bases, tree_bases, unavailable
from graphrepro.chapters.hgcn_mlp_bug.paper import (
    METRIC,
    NC_MODELS,
    NC_VARIANTS,
    PAPER,
    PAPER_DELTA,
    PAPER_RUNS,
    PAPER_TREE,
    ROWS,
    TASK_LABELS,
    TREE_MODELS,
    TRIPOD_CURVATURES,
)
from graphrepro.data.hgcn import raw_graph, read_disease
from graphrepro.data.registry import DATASETS, resolve
from graphrepro.data.synthetic import tree_graph
from graphrepro.experiments import hgcn
from graphrepro.metrics import METRICS, link_metrics
from graphrepro.report import fmt, mean_std
from graphrepro.verdicts import Cell, Estimate, judge_cell


def _column(task: str) -> tuple[str, float]:
    """A task's test metric: its record column and the scale its tables show it at."""
    spec = METRICS[METRIC[task.split("/")[1]]]
    return f"test_{spec.name}", spec.scale


def _cell(runs: pd.DataFrame, task: str) -> tuple[float, float, int, int]:
    """Mean, std and count of a cell's test metric, and its number of records (diverged ones included)."""
    column, scale = _column(task)
    values = runs[column] if column in runs else pd.Series(dtype=float)
    return (*mean_std(values, scale), len(runs))


def per_seed(runs: pd.DataFrame, column: str, scale: float = 100.0) -> dict[int, float]:
    """A cell's ``column`` by seed, scaled as its table shows it; diverged runs left out (the claims pair them)."""
    known = runs.dropna(subset=[column]) if column in runs and len(runs) else runs.iloc[:0]
    return {int(seed): scale * float(value) for seed, value in zip(known.get("seed", []), known.get(column, []))}


def table1(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Paper and ours (tuned, and with the README settings) side by side with a verdict per cell, long
    format: one row per model and task. The verdict compares the tuned runs with the paper."""
    rows = []
    labels = ["model", "variant", "task"]
    bases = [(dict(zip(labels, (m, v, t))), base) for m, v, t, base in table1_bases(params)]
    groups, settings = tuning.cell_groups(tuning.seed_plan(bases, params, runs), runs, labels)
    for task in params["tasks"]:
        missing = unavailable(task)
        if missing:  # one row says why the whole column is empty
            rows.append({"model": "every model", "task": TASK_LABELS[task], "paper": "see above",
                         "ours": f"unavailable: {missing}", "README settings": "–", "chosen setting": "–",
                         "seeds": 0, "verdict": Cell.UNAVAILABLE, "why": missing, "paper_mean": math.nan, "ours_mean": math.nan,
                         "ours_std": math.nan, "readme_mean": math.nan, "readme_std": math.nan})
            continue
        for model, variant in ROWS:
            tuned = groups.get((model, variant, task, "tuned"), runs.iloc[:0])
            ours, ours_std, n, records = _cell(tuned, task)
            plain, plain_std, _, _ = _cell(groups.get((model, variant, task, "readme"), runs.iloc[:0]), task)
            paper, paper_std = PAPER.get((model, variant), {}).get(task, (math.nan, math.nan))
            rows.append({
                "model": row_label(model, variant),
                "task": TASK_LABELS[task],
                "paper": fmt(paper, paper_std),
                "ours": fmt(ours, ours_std),
                "README settings": fmt(plain, plain_std),
                "chosen setting": settings[(model, variant, task)],
                "seeds": n,
                "verdict": judge_cell(Estimate(ours, ours_std, n), Estimate(paper, paper_std, PAPER_RUNS), params["tolerance"], records),
                "paper_mean": paper,
                "ours_mean": ours,
                "ours_std": ours_std,
                "readme_mean": plain,
                "readme_std": plain_std,
                "per seed": per_seed(tuned, *_column(task)),
            })
    return pd.DataFrame(rows)


def table1_compact(long: pd.DataFrame) -> report.HTML:
    """Table 1 at a glance: models down, tasks across, paper | ours (tuned) | verdict in each cell; a task
    whose data cannot be had is named in the caption instead of filling a column."""
    missing = long[long.verdict == Cell.UNAVAILABLE]
    caption = "; ".join(f"{r.task}: {r.ours}" for r in missing.itertuples())
    return report.verdict_grid(long[long.verdict != Cell.UNAVAILABLE], "model", "task", caption)


def table1_display(long: pd.DataFrame) -> pd.DataFrame:
    """Table 1 in full: a row per task and model with the paper's cell, ours, and the verdict."""
    table = long.set_index(["task", "model"])[["paper", "ours", "verdict", "README settings", "chosen setting", "seeds"]]
    return table.rename(columns={"ours": "ours (tuned)", "README settings": "ours (README settings)"})


def row_label(model: str, variant: str) -> str:
    """How a (model, variant) row is named in tables."""
    return model if variant == "none" else f"{model} ({variant})"


def paper_table(params: dict[str, Any]) -> pd.DataFrame:
    """Table 1's published numbers for the tasks of this run."""
    named = {row_label(*row): cells for row, cells in PAPER.items()}
    table = report.paper_table(named, list(params["tasks"]))
    return table.rename(columns=TASK_LABELS)


def nc_split_table(runs: pd.DataFrame, params: dict[str, Any], planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """Test F1 (micro, = accuracy) per model and variant, and what the split's leak and the label's
    column each add."""
    found = cells.stats(nc_plan(params) if planned is None else planned, runs, ["model", "variant"], "test_f1")
    rows = []
    for model in NC_MODELS:
        means = {name: found.loc[(model, name), "mean"] for name in NC_VARIANTS}
        rows.append({"model": model, **{name: fmt(*found.loc[(model, name), ["mean", "std"]]) for name in NC_VARIANTS},
                     "leak adds (points)": round(means["HGCN's split (leaky)"] - means["stratified 70/15/15"], 1),
                     "label's column adds (points)": round(means["leaky split, label's column kept"]
                                                           - means["HGCN's split (leaky)"], 1)})
    return pd.DataFrame(rows).set_index("model")


def tree_curve(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Test ROC AUC (%) per model and γ: mean and std of the tuned runs and of the README settings."""
    rows, labels = [], ["model", "γ"]
    bases = [({"model": base["model"], "γ": base["tree_gamma"]}, base) for base in tree_bases(params)]
    groups, settings = tuning.cell_groups(tuning.seed_plan(bases, params, runs), runs, labels)
    for cell in settings:
        tuned, readme = (groups.get((*cell, role), runs.iloc[:0]) for role in ("tuned", "readme"))
        mean, std, n = mean_std(tuned["test_roc"]) if len(tuned) else (math.nan, math.nan, 0)
        plain, plain_std, _ = mean_std(readme["test_roc"]) if len(readme) else (math.nan, math.nan, 0)
        rows.append({**dict(zip(labels, cell)), "mean": mean, "std": std, "seeds": n,
                     "readme_mean": plain, "readme_std": plain_std, "chosen setting": settings[cell],
                     "per seed": per_seed(tuned, "test_roc")})
    return pd.DataFrame(rows)


def tree_table(curve: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Table 2: Tree1111 (γ = 0), paper beside ours (tuned, and with the README settings)."""
    rows = []
    for model in TREE_MODELS:
        match = curve[(curve.model == model) & (curve["γ"] == 0.0)]
        if len(match):
            cell = match.iloc[0]
            ours, std, plain, plain_std, setting = cell["mean"], cell["std"], cell.readme_mean, cell.readme_std, cell["chosen setting"]
            seeds = int(cell.seeds)
        else:
            ours = std = plain = plain_std = math.nan
            seeds = 0
            setting = "–"
        paper = PAPER_TREE[model]
        rows.append({
            "model": "HyboNet (paper) / HGCN (ours)" if model == "HGCN" else model,
            "paper": fmt(*paper), "ours (tuned)": fmt(ours, std), "verdict": judge_cell(Estimate(ours, std, seeds), Estimate(*paper, PAPER_RUNS), tolerance),
            "ours (README settings)": fmt(plain, plain_std), "chosen setting": setting,
        })
    return pd.DataFrame(rows).set_index("model")


def isolated_endpoints(params: dict[str, Any]) -> pd.DataFrame:
    """How often a test pair has an endpoint left without any training edge, for held-out edges and for
    the sampled non-edges, and the ROC AUC (%) of scoring a pair by the fewer training edges of its two
    endpoints: a score that knows nothing but the split (nothing is trained)."""
    rows = []
    bases = tree_bases(params)[:1]  # every γ shares the tree and hence the split
    bases += [hgcn.make_config(d, "lp", "MLP", 0, "debugged", normalize_feats=d != "disease_lp") for d in ("disease_lp", "airport")]
    for base in bases:
        data = hgcn.prepare(base)
        degree = torch.bincount(data.train_pos.flatten(), minlength=data.num_nodes)
        low = {kind: degree[data[f"test_{kind}"]].min(dim=1).values.float() for kind in ("pos", "neg")}
        rows.append({
            "graph": base["dataset"],
            "held-out edges with an isolated end (%)": round(100 * float((low["pos"] == 0).float().mean()), 1),
            "non-edges with an isolated end (%)": round(100 * float((low["neg"] == 0).float().mean()), 1),
            "ROC AUC of 'fewer training edges' (%)": round(100 * link_metrics(-low["pos"].numpy(), -low["neg"].numpy())["roc"], 1),
        })
    return pd.DataFrame(rows).set_index("graph")


def graph(name: str) -> sp.csr_matrix:
    """The adjacency of a chapter-1 graph (only edges: disease_nc needs no feature file here)."""
    if name == "tree1111":
        return tree_graph(10, 3)[0]
    if name == "disease_nc":
        files = {f.path.split("/")[-1]: f for f in DATASETS[name].files}
        return read_disease(resolve(files["disease_nc.edges.csv"]), resolve(files["disease_nc.labels.npy"]), None)[0]
    return raw_graph(name)[0]


def delta_table(params: dict[str, Any]) -> pd.DataFrame:
    """Gromov δ (four-point condition) of each graph beside the paper's value."""
    rows = []
    for name, paper in PAPER_DELTA.items():
        result = geometry.gromov_delta(graph(name), samples=params["delta_samples"])
        rows.append({
            "graph": name, "nodes": result["nodes"], "δ (paper)": paper, "δ (ours)": result["delta"],
            "how": "exact" if result["exact"] else f"max over {result['quadruples']:,} random quadruples",
        })
    return pd.DataFrame(rows).set_index("graph")


def curvature_frame(params: dict[str, Any], names: tuple[str, ...] = ("disease_lp", "tree1111", "airport")) -> pd.DataFrame:
    """Ollivier–Ricci curvature of every edge (or a random sample of ``ricci_edges``) of each graph."""
    rows = []
    rng = np.random.default_rng(0)
    for name in names:
        adj = graph(name)
        edges = np.stack(sp.triu(adj, k=1).nonzero(), axis=1)
        if params["ricci_edges"] and params["ricci_edges"] < len(edges):
            edges = edges[rng.choice(len(edges), params["ricci_edges"], replace=False)]
        kappa = geometry.ollivier_ricci(adj, edges)
        rows.append(pd.DataFrame({"graph": name, "curvature": kappa}))
    return pd.concat(rows, ignore_index=True)


def curvature_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Edges, mean and quartiles of the curvature per graph."""
    summary = frame.groupby("graph", sort=False).curvature.describe()[["count", "mean", "25%", "50%", "75%"]]
    return summary.astype({"count": int}).round(3)


def tripod_frame(curvatures: tuple[float, ...] = TRIPOD_CURVATURES) -> pd.DataFrame:
    """Leaf-to-leaf distance of the tripod against |K|: geoopt's Lorentz distance and the closed form."""
    return pd.DataFrame([
        {"|K|": k, "geoopt": geometry.tripod_leaf_distance(k), "closed form": geometry.tripod_leaf_distance_closed_form(k)}
        for k in curvatures
    ])


class Tables(cells.Tables):
    """The tables the claims, findings, headline and Verdicts page read, over one frame of records."""

    main = cells.table("Table 1, paper and ours (tuned on the records' searches)",
                       lambda t: table1(t.runs[t.runs.dataset != "tree1111"] if len(t.runs) else t.runs, t.params))
    nc = cells.table("Node classification F1 per model and variant: what the split leak and label column add",
                     lambda t: nc_split_table(t.runs, t.params))
    curve = cells.table("Tree1111: test ROC AUC per model and gamma", lambda t: tree_curve(t.runs, t.params))
    nc_seeds = cells.table("Node classification F1 per model, variant and seed",
                           lambda t: {cell: per_seed(group, "test_f1") for cell, group in
                                      cells.recorded(nc_plan(t.params), t.runs).groupby(["model", "variant"])})