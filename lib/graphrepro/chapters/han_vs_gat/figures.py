"""han-vs-gat: figures built from the tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def cost_figure(cost: pd.DataFrame) -> plt.Figure:
    """Time per epoch against Micro-F1, marker size by peak memory (the paper's Figure 2)."""
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    if len(cost):
        sizes = 40 + 400 * cost["peak memory (MB)"].fillna(0) / max(cost["peak memory (MB)"].max(), 1)
        ax.scatter(cost["seconds per epoch"], cost["Micro-F1"], s=sizes, color=sns.color_palette()[0], alpha=0.7)
        for _, r in cost.iterrows():
            ax.annotate(r.model, (r["seconds per epoch"], r["Micro-F1"]), textcoords="offset points", xytext=(6, 4))
        ax.set_xscale("log")
        ax.set_title(cost.dataset.iloc[0])
    ax.set_xlabel("seconds per epoch, training and evaluation (one CPU thread)")
    ax.set_ylabel("test Micro-F1 (%)")
    fig.tight_layout()
    return fig
