"""hgcn-mlp-bug: figures built from the tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from graphrepro.chapters.hgcn_mlp_bug.paper import SOLVED
from graphrepro.verdicts import Cell


def table1_figure(long: pd.DataFrame) -> plt.Figure:
    """Ours, tuned and with the README settings (mean ± std over seeds), against the paper's numbers, per task."""
    long = long[long.verdict != Cell.UNAVAILABLE]
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
    handles, labels = axes[0][0].get_legend_handles_labels()  # one key for every panel, above the first
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(labels), frameon=False, fontsize="small")
    return fig


def gamma_figure(curve: pd.DataFrame) -> plt.Figure:
    """Figure 2 extended: tuned test ROC AUC against γ, mean and a one-std band, per model; the README
    settings' means as dashed lines."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for color, (model, part) in zip(sns.color_palette(), curve.groupby("model", sort=False)):
        part = part.sort_values("γ")
        ax.plot(part["γ"], part["mean"], marker="o", label=model, color=color)
        ax.fill_between(part["γ"], part["mean"] - part["std"], part["mean"] + part["std"], alpha=0.2, color=color)
        ax.plot(part["γ"], part.readme_mean, linestyle="--", color=color, alpha=0.7, label=f"{model}, README settings")
    ax.axhline(SOLVED, color="grey", linestyle=":", label=f"{SOLVED:g} (solved)")
    ax.set_xlabel("γ (how much of the parent's features a child inherits)")
    ax.set_ylabel("test ROC AUC (%)")
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    return fig


def curvature_figure(frame: pd.DataFrame) -> plt.Figure:
    """Overlaid histograms of edge curvature, one colour per graph (density, so sizes compare)."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.histplot(frame, x="curvature", hue="graph", stat="density", common_norm=False, element="step",
                 bins=np.linspace(-2, 1, 61), ax=ax)
    ax.set_xlabel("Ollivier–Ricci curvature of an edge")
    fig.tight_layout()
    return fig


def tripod_figure(frame: pd.DataFrame) -> plt.Figure:
    """Figure 1: the leaf-to-leaf distance approaches the graph's 2 as |K| grows; Euclidean space (K = 0, the
    dotted line) keeps √3. |K| on a log axis, so K = 0 itself is the line, not a point."""
    frame = frame[frame["|K|"] > 0]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(frame["|K|"], frame["closed form"], label="closed form", linewidth=2)
    ax.plot(frame["|K|"], frame["geoopt"], "o", label="geoopt Lorentz.dist")
    ax.axhline(2.0, color="grey", linestyle="--", label="graph distance (2)")
    ax.axhline(np.sqrt(3), color="grey", linestyle=":", label="Euclidean, K = 0 (√3)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(frame["|K|"]), [f"{k:g}" if k >= 1 else f"1/{1 / k:g}" for k in frame["|K|"]])
    ax.minorticks_off()
    ax.margins(x=0.05)  # the last point whole
    ax.set_xlabel("|K| (curvature magnitude, log scale)")
    ax.set_ylabel("leaf-to-leaf distance")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig
