"""han-vs-gat: figures built from the tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib import ticker


def cost_figure(cost: pd.DataFrame) -> plt.Figure:
    """Time per epoch against Micro-F1, marker size by peak memory with a key for it (the paper's Figure 2)."""
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    if len(cost):
        largest = max(cost["peak memory (MB)"].max(), 1)
        area = lambda mb: 40 + 400 * mb / largest  # noqa: E731
        ax.scatter(cost["seconds per epoch"], cost["Micro-F1"], s=area(cost["peak memory (MB)"].fillna(0)),
                   color=sns.color_palette()[0], alpha=0.7)
        for _, r in cost.iterrows():
            ax.annotate(r.model, (r["seconds per epoch"], r["Micro-F1"]), textcoords="offset points", xytext=(6, 4))
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))  # 0.5, 1, 2: no "3 × 10⁻¹"
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        keys = sorted({round(cost["peak memory (MB)"].min(), -2) or 100.0, round(largest, -2)})
        ax.legend([ax.scatter([], [], s=area(mb), color=sns.color_palette()[0], alpha=0.7) for mb in keys],
                  [f"{mb:,.0f} MB" for mb in keys], title="peak memory", fontsize="small", loc="lower right")
        ax.set_title(cost.dataset.iloc[0])
    ax.set_xlabel("seconds per epoch, training and evaluation (one CPU thread)")
    ax.set_ylabel("test Micro-F1 (%)")
    fig.tight_layout()
    return fig
