"""lrgb-head: figures built from the tables."""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator, ScalarFormatter

from graphrepro.chapters.lrgb_head.paper import HEAD_STAGES, PAPER, STAGES
from graphrepro.experiments import lrgb

LOG_EPOCHS = 50  # the curve figure's epochs go on a log scale past this
LOG_TICKS = (1, 2, 5, 10, 30, 100, 500)


def _chance_line(ax: plt.Axes, chance: float | None) -> None:
    """Chance-level AP (× 100) as a dotted line, when the dataset gave one."""
    if chance is not None:
        ax.axhline(chance, color="grey", ls=":", label="chance")


def head_figure(long: pd.DataFrame, params: dict[str, Any], chance: float | None = None) -> plt.Figure:
    """Bars per model for the three stages (ours, with seed spread) from zero, the papers' GPS as lines and chance
    AP (× 100) dotted (the paper's Figure 1)."""
    data = long[long.stage.isin(HEAD_STAGES)]
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    palette = sns.color_palette()
    width = 0.26
    for i, stage in enumerate(HEAD_STAGES):
        part = data[data.stage == stage].set_index("model").reindex(list(params["models"]))
        x = np.arange(len(part)) + (i - 1) * width
        ax.bar(x, part["mean"], width, yerr=part["std"], color=palette[i], label=stage, capsize=3)
        paper = [PAPER.get((m, stage), (math.nan,))[0] for m in part.index]
        ax.scatter(x, paper, marker="_", s=300, color="black", zorder=3, label="paper" if i == 0 else None)
    gps = long[(long.model == lrgb.GPS) & (long.stage == "tuned")]
    if len(gps) and not math.isnan(gps["mean"].iloc[0]):
        ax.axhline(gps["mean"].iloc[0], color=palette[3], label="GPS (ours)")
    ax.axhline(PAPER[(lrgb.GPS, "tuned")][0], color=palette[3], ls="--", label="GPS (paper)")
    ax.set_xticks(np.arange(len(params["models"])), list(params["models"]))
    _chance_line(ax, chance)
    ax.set_ylabel("test AP (× 100)")
    ax.set_ylim(0, 75)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=4)
    fig.tight_layout()
    return fig


def curve_figure(curve: pd.DataFrame, params: dict[str, Any], chance: float | None = None) -> plt.Figure:
    """Validation AP per epoch: each stage's mean over seeds at the profile's budget, per model; the longer pair
    dashed, the papers' budget dash-dotted, chance AP (× 100) dotted. Epochs go on a log scale once a run is
    longer than ``LOG_EPOCHS``, so that 8, 30 and 500 epochs all stay readable."""
    fig, axes = plt.subplots(1, max(1, len(params["models"])), figsize=(7.2, 2.8), sharey=True, squeeze=False)
    log = bool(len(curve)) and curve.epoch.max() > LOG_EPOCHS
    palette = dict(zip(STAGES, sns.color_palette()))
    for ax, model in zip(axes[0], params["models"]):
        part = curve[curve.model == model]
        for (stage, epochs), group in part.groupby(["stage", "epochs"]):
            mean = group.groupby("epoch")["val AP"].mean()
            longer = bool(params["long_epochs"]) and epochs == params["long_epochs"] != params["epochs"]
            papers = bool(params["epochs"]) and epochs > max(params["epochs"], params["long_epochs"])
            ax.plot(mean.index, mean.values, color=palette.get(stage, "grey"), ls="--" if longer else "-." if papers else "-",
                    label=f"{stage}{' (longer)' if longer else ' (papers’ epochs)' if papers else ''}")
        _chance_line(ax, chance)
        ax.set_title(model)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(FixedLocator([t for t in LOG_TICKS if t <= max(part.epoch.max(), 1)]))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_locator(NullLocator())
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("epoch (log scale)" if log else "epoch")
    axes[0][0].set_ylabel("validation AP (× 100)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, fontsize=7, loc="upper center", ncol=3, bbox_to_anchor=(0.5, 0.02))
    fig.tight_layout()
    return fig
