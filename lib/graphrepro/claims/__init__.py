"""Per-chapter analyses: the paper's numbers, the grids of runs, and the tables and verdicts built from records."""

from __future__ import annotations

import pandas as pd


def all_verdicts(profile: str) -> pd.DataFrame:
    """Every chapter's claim verdicts from the run store under ``profile`` (nothing is trained)."""
    from graphrepro.claims import hgcn_mlp_bug

    return pd.DataFrame([row for module in (hgcn_mlp_bug,) for row in module.claim_verdicts(profile)])
