"""mrr-variants: figures built from the tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from graphrepro.chapters.mrr_variants.tables import SCALE
from graphrepro.metrics import ranking


def size_figure(frame: pd.DataFrame) -> plt.Figure:
    """MRR and the adjusted MRR (× 100) against the number of candidates, one point per dataset and model (mean over seeds)."""
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 3.0))
    cells = frame.groupby(["dataset", "model"], as_index=False)[["candidates", "mrr", "amrr"]].mean() if len(frame) else frame
    cells = cells.assign(mrr=100 * cells.mrr, amrr=100 * cells.amrr) if len(cells) else cells  # the page's scale
    for ax, metric in zip(axes, ("mrr", "amrr")):
        if len(cells):
            sns.scatterplot(data=cells, x="candidates", y=metric, hue="model", style="dataset", ax=ax, s=60, legend=ax is axes[1])
        ax.set_xscale("log")
        ax.set_xlabel("candidates per query (log scale)")
        ax.set_ylabel(f"{ranking.RANK_METRICS[metric].label} {SCALE}")
    if axes[1].get_legend() is not None:
        axes[1].legend(fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
    fig.tight_layout()
    return fig
