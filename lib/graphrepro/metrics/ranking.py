"""Rank-based link-prediction metrics (Hoyt et al. 2022, "A Unified Framework for Rank-based Evaluation
Metrics"): ranks from scores under optimistic, realistic and pessimistic tie handling with filtered
candidates, the base metrics MR, MRR, Hits@k and GMR, their closed-form expectation and variance when
every rank is uniform on 1..C_i, and the derived adjusted, re-indexed and z-scored metrics.

Every metric is computed by name, ``metric(name, ranks, num_candidates, k)``, from per-query arrays (numpy, or
torch tensors, which are read as numpy); ``expectation`` and ``variance`` take the same name. Checked against
pykeen 1.11.1 and by Monte Carlo in ``tests/test_ranking.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from graphrepro.metrics.spec import RANK_METRICS, Metric

TIES = ("optimistic", "realistic", "pessimistic")
_EPS = 1e-12  # smallest |denominator| of a derived metric (pykeen's ``_safe_divide``)


def _array(values: Any) -> np.ndarray:
    """A float64 numpy array from numpy or torch input."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float64)


def ranks_from_scores(scores: Any, true_index: Any, exclude: Any = None) -> dict[str, np.ndarray]:
    """Per query (row of ``scores``, higher is better): the rank of the true candidate ``true_index`` among
    the candidates not excluded (``exclude`` [queries, candidates] masks them; the true candidate is
    never excluded; NaN scores are excluded), under each tie rule, and the number of candidates (the
    true one included). Optimistic puts tied candidates behind the true one, pessimistic in front,
    realistic halfway (the expected rank under random tie breaking)."""
    s = _array(scores)
    rows = np.arange(len(s))
    idx = np.asarray(true_index, dtype=np.int64)
    true = s[rows, idx]
    if np.isnan(true).any():
        raise ValueError("a true candidate has a NaN score")
    keep = ~np.isnan(s)
    if exclude is not None:
        keep &= ~np.asarray(exclude, dtype=bool)
    keep[rows, idx] = True
    optimistic = 1 + ((s > true[:, None]) & keep).sum(1)
    pessimistic = ((s >= true[:, None]) & keep).sum(1)
    return {"optimistic": optimistic.astype(np.float64), "pessimistic": pessimistic.astype(np.float64),
            "realistic": (optimistic + pessimistic) / 2.0, "num_candidates": keep.sum(1).astype(np.int64)}


# --- base metrics, their null moments --------------------------------------------------------------------

def _harmonic(candidates: np.ndarray, power: float) -> np.ndarray:
    """Σ_{j=1}^{C} j^-power for every C in ``candidates`` (one cumulative sum up to the largest)."""
    table = np.concatenate([[0.0], np.cumsum(np.arange(1, int(candidates.max()) + 1, dtype=np.float64) ** -power)])
    return table[candidates.astype(np.int64)]


def _power_mean(candidates: np.ndarray, exponent: float) -> np.ndarray:
    """E[r^exponent] for r uniform on 1..C, for every C."""
    return _harmonic(candidates, -exponent) / candidates


def _candidates(num_candidates: Any) -> np.ndarray:
    c = _array(num_candidates)
    if (c < 1).any() or (c != np.round(c)).any():
        raise ValueError("num_candidates must be whole numbers >= 1")
    return c


def mr(ranks: Any, num_candidates: Any = None) -> float:
    """Mean rank (lower is better)."""
    return float(_array(ranks).mean())


def mrr(ranks: Any, num_candidates: Any = None) -> float:
    """Mean reciprocal rank (the inverse harmonic mean rank; higher is better)."""
    return float((1.0 / _array(ranks)).mean())


def hits_at_k(ranks: Any, num_candidates: Any = None, k: int = 10) -> float:
    """Share of queries ranked at most ``k``."""
    return float((_array(ranks) <= k).mean())


def gmr(ranks: Any, num_candidates: Any = None) -> float:
    """Geometric mean rank (lower is better)."""
    return float(np.exp(np.log(_array(ranks)).mean()))


def _moments(name: str, c: np.ndarray, k: int = 10) -> tuple[float, float]:
    """(expectation, variance) of a base metric when each rank is uniform on 1..C_i, independently."""
    n = len(c)
    if name == "mr":
        return float(((c + 1) / 2).mean()), float(((c**2 - 1) / 12).sum() / n**2)
    if name == "mrr":
        h1, h2 = _harmonic(c, 1.0), _harmonic(c, 2.0)
        return float((h1 / c).mean()), float(((c * h2 - h1**2) / c**2).sum() / n**2)
    if name == "hits_at_k":
        p = np.minimum(k / c, 1.0)
        return float(p.mean()), float((p * (1 - p)).sum() / n**2)
    if name == "gmr":  # E[Π r_i^(1/n)] = Π E[r_i^(1/n)]; V = E1² (E2 / E1² - 1), in log space without cancellation
        log_first = np.log(_power_mean(c, 1.0 / n))
        gap = (np.log(_power_mean(c, 2.0 / n)) - 2 * log_first).sum()
        return float(np.exp(log_first.sum())), float(np.exp(2 * log_first.sum()) * np.expm1(gap))
    raise KeyError(name)


# --- derived metrics (their specs: ``spec.RANK_METRICS``) ---------------------------------------------

BASE: dict[str, Callable[..., float]] = {"mr": mr, "mrr": mrr, "hits_at_k": hits_at_k, "gmr": gmr}


def _spec(name: str) -> Metric:
    if name not in RANK_METRICS:
        raise KeyError(f"unknown rank metric {name!r}; known: {', '.join(RANK_METRICS)}")
    return RANK_METRICS[name]


def _safe(denominator: float) -> float:
    return denominator if abs(denominator) >= _EPS else (_EPS if denominator >= 0 else -_EPS)


def _affine(spec: Metric, c: np.ndarray, k: int) -> tuple[float, float]:
    """(α, β) with derived = α · base + β; they depend only on the candidate counts."""
    e, v = _moments(spec.base, c, k)
    if spec.kind == "base":
        return 1.0, 0.0
    if spec.kind == "ratio":
        return 1.0 / _safe(e), 0.0
    if spec.kind == "reindex":
        alpha = 1.0 / _safe(1.0 - e)
        return alpha, -alpha * e
    sign = 1.0 if RANK_METRICS[spec.base].higher_is_better else -1.0  # z: larger is better for every base
    alpha = sign / _safe(np.sqrt(v))
    return alpha, -alpha * e


def metric(name: str, ranks: Any, num_candidates: Any, k: int = 10) -> float:
    """The value of rank metric ``name`` (``k`` for the Hits@k family)."""
    spec = _spec(name)
    r = _array(ranks)
    base = BASE[spec.base](r, None, k=k) if spec.base == "hits_at_k" else BASE[spec.base](r)
    if spec.kind == "base":
        return base
    alpha, beta = _affine(spec, _candidates(num_candidates), k)
    return float(alpha * base + beta)


def expectation(name: str, num_candidates: Any, k: int = 10) -> float:
    """E[metric] when each query's rank is uniform on 1..C_i, independently."""
    spec = _spec(name)
    c = _candidates(num_candidates)
    alpha, beta = _affine(spec, c, k)
    return float(alpha * _moments(spec.base, c, k)[0] + beta)


def variance(name: str, num_candidates: Any, k: int = 10) -> float:
    """Var[metric] under the same null model."""
    spec = _spec(name)
    c = _candidates(num_candidates)
    alpha, _ = _affine(spec, c, k)
    return float(alpha**2 * _moments(spec.base, c, k)[1])
