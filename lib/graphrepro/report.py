"""Reporting: the one figure style, parameter tables, mean ± std cells and computed verdicts."""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

REPRODUCED = "reproduced"


def set_style() -> None:
    """The book's single figure style."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind", font_scale=0.95)
    plt.rcParams.update({"figure.dpi": 110, "savefig.bbox": "tight", "axes.titleweight": "bold"})


def glue_figure(name: str, fig: plt.Figure) -> None:
    """Glue a figure for a ``{glue:figure}`` block and close it, so that it is not shown twice."""
    from myst_nb import glue

    glue(name, fig, display=False)
    plt.close(fig)


def parameters_table(params: dict[str, Any]) -> pd.DataFrame:
    """The parameters a page ran with, as a two-column table."""
    rows = [{"parameter": k, "value": ", ".join(map(str, v)) if isinstance(v, list) else str(v)} for k, v in params.items()]
    return pd.DataFrame(rows).set_index("parameter")


def mean_std(values: pd.Series, scale: float = 100.0) -> tuple[float, float, int]:
    """Mean, sample standard deviation (0 for one value) and count, scaled (to percent by default)."""
    v = values.dropna() * scale
    return float(v.mean()) if len(v) else math.nan, float(v.std(ddof=1)) if len(v) > 1 else 0.0, len(v)


def fmt(mean: float, std: float) -> str:
    """'mean ± std' with one decimal, or a dash when there is no number."""
    return "–" if math.isnan(mean) else f"{mean:.1f} ± {std:.1f}"


def verdict(ours: float, paper: float, tolerance: float, runs: int = 0) -> str:
    """'reproduced' when |ours - paper| ≤ tolerance (in points), else the signed gap; ``runs`` tells a
    missing number (not run) from runs that all diverged before their first evaluation."""
    if math.isnan(ours):
        return "diverged" if runs else "not run"
    if math.isnan(paper):
        return "no paper number"
    gap = ours - paper
    return REPRODUCED if abs(gap) <= tolerance else f"differs by {gap:+.1f}"


def claim_row(chapter: str, claim: str, holds: bool | None, evidence: str) -> dict[str, str]:
    """One row of a verdict table: the claim, whether our records support it, and the numbers behind it."""
    word = "not run" if holds is None else ("holds" if holds else "does not hold")
    return {"chapter": chapter, "claim": claim, "verdict": word, "evidence": evidence}


def verdict_table(rows: list[dict[str, str]]) -> pd.DataFrame:
    """Claim verdicts as a table indexed by claim."""
    return pd.DataFrame(rows).drop(columns="chapter").set_index("claim")


def paper_table(paper: dict[str, dict[str, tuple[float, float]]], columns: list[str]) -> pd.DataFrame:
    """The paper's numbers as 'mean ± std', a row per model and a column per task."""
    return pd.DataFrame(
        {task: {row: fmt(*cells[task]) if task in cells else "–" for row, cells in paper.items()} for task in columns}
    )
