"""gmnn-fair-eval: figures built from the tables."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from graphrepro.chapters.gmnn_fair_eval.searches import available
from graphrepro.chapters.gmnn_fair_eval.paper import ROW_ORDER
from graphrepro.chapters.gmnn_fair_eval.tables import fold_scores


def fold_figure(runs: pd.DataFrame, params: dict[str, Any]) -> plt.Figure:
    """Test accuracy per fold, a line per model, one panel per dataset and training set."""
    scores = fold_scores(runs)
    panels = [(d, k) for d in available(params) for k in params["kinds"]]
    fig, axes = plt.subplots(len(panels), 1, figsize=(5.2, 2.4 * max(len(panels), 1)), squeeze=False, sharex=True)
    for ax, (dataset, kind) in zip(axes[:, 0], panels):
        cell = scores[(scores.dataset == dataset) & (scores.kind == kind) & ~scores.row.isin(["GMNN p", "GMNN q"])] if len(scores) else scores
        if len(cell):
            order = [m for m in ROW_ORDER if m in set(cell.row)]
            sns.lineplot(cell, x="fold", y="acc", hue="row", hue_order=order, palette=dict(zip(ROW_ORDER, sns.color_palette())),
                         marker="o", ax=ax)
            ax.legend(fontsize="x-small", ncols=3, loc="lower center")
        ax.set_title(f"{dataset}, {kind.replace('_', ' ')}", fontsize="small")
        ax.set_ylabel("test accuracy (%)")
    axes[-1, 0].set_xlabel("fold")
    fig.tight_layout()
    return fig
