"""Evaluation metrics as HGCN computes them (ROC AUC and AP for links, binary or micro F1 for nodes), and
the specs of every metric the book reports (direction, range, display, verify tolerance).

Written in numpy because they run every epoch; ``tests/test_metrics.py`` checks them against scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata


def roc_auc(pos_scores: np.ndarray, neg_scores: np.ndarray) -> float:
    """Area under the ROC curve: the Mann-Whitney statistic with average ranks for ties."""
    n_pos, n_neg = len(pos_scores), len(neg_scores)
    ranks = rankdata(np.r_[pos_scores, neg_scores])
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_precision(pos_scores: np.ndarray, neg_scores: np.ndarray) -> float:
    """Average precision: sum over score thresholds of (recall step) x precision, no interpolation."""
    scores = np.r_[pos_scores, neg_scores]
    order = np.argsort(-scores, kind="mergesort")
    hits = np.r_[np.ones(len(pos_scores)), np.zeros(len(neg_scores))][order]
    last_of_threshold = np.r_[np.flatnonzero(np.diff(scores[order])), len(scores) - 1]
    tp = np.cumsum(hits)[last_of_threshold]
    precision = tp / (last_of_threshold + 1)
    recall = tp / len(pos_scores)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def multilabel_ap(labels: np.ndarray, scores: np.ndarray) -> float:
    """OGB's ``eval_ap``: the mean over label columns of average precision, skipping columns where the
    labelled rows do not hold both classes (NaN labels are unlabelled)."""
    per_task = []
    for y, s in zip(labels.T, scores.T):
        known = ~np.isnan(y)
        y, s = y[known], s[known]
        if 0 < y.sum() < len(y):
            per_task.append(average_precision(s[y == 1], s[y == 0]))
    if not per_task:
        raise ValueError("no label column holds both classes: average precision is undefined")
    return float(np.mean(per_task))


def link_metrics(pos_scores: np.ndarray, neg_scores: np.ndarray) -> dict[str, float]:
    """ROC AUC and average precision of positive against negative pair scores."""
    return {"roc": roc_auc(pos_scores, neg_scores), "ap": average_precision(pos_scores, neg_scores)}


def node_metrics(pred: np.ndarray, labels: np.ndarray, n_classes: int) -> dict[str, float]:
    """Accuracy and F1: binary F1 of class 1 for two classes, micro-F1 otherwise (as HGCN's ``acc_f1``)."""
    acc = float(np.mean(pred == labels))
    if n_classes > 2:
        return {"acc": acc, "f1": acc}  # micro-F1 equals accuracy for single-label classes
    tp = np.sum((pred == 1) & (labels == 1))
    denominator = np.sum(pred == 1) + np.sum(labels == 1)
    return {"acc": acc, "f1": float(2 * tp / denominator) if denominator else 0.0}


def link_selection_score(metrics: dict[str, float]) -> float:
    """HGCN's link-prediction model selection: the mean of validation ROC AUC and AP."""
    return 0.5 * (metrics["roc"] + metrics["ap"])


@dataclass(frozen=True)
class MetricSpec:
    """What a metric is: its name, direction, range, how it is shown, and how closely ``verify`` must
    find it again when the environment differs (absolute, on the raw value). ``pykeen`` names pykeen's
    metric of the same definition, where one exists; ``derived`` computes it from other metrics."""

    name: str
    label: str
    higher_is_better: bool
    low: float
    high: float
    scale: float = 100.0  # shown in percent unless said otherwise
    unit: str = "%"
    tolerance: float = 0.01
    pykeen: str | None = None
    derived: Callable[[Mapping[str, float]], float] | None = None

    def shown(self, value: float) -> float:
        """The value as tables show it."""
        return value * self.scale

    def in_range(self, value: float) -> bool:
        """True when ``value`` lies in the metric's range."""
        return self.low <= value <= self.high

    def value(self, metrics: Mapping[str, float], prefix: str = "") -> float:
        """This metric read (or derived) from a metrics mapping whose keys carry ``prefix`` (``val_``, ``test_``)."""
        if self.derived is not None:
            return self.derived({k[len(prefix):]: v for k, v in metrics.items() if k.startswith(prefix)})
        return float(metrics[prefix + self.name])


INF = float("inf")
METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in [
        MetricSpec("roc", "ROC AUC", True, 0.0, 1.0),
        MetricSpec("ap", "average precision", True, 0.0, 1.0),
        MetricSpec("roc_ap_mean", "mean of ROC AUC and AP (HGCN's link selection)", True, 0.0, 1.0,
                   derived=link_selection_score),
        MetricSpec("acc", "accuracy", True, 0.0, 1.0),
        MetricSpec("f1", "F1 (binary for two classes, else micro)", True, 0.0, 1.0),
        MetricSpec("micro_f1", "micro-F1", True, 0.0, 1.0),
        MetricSpec("loss", "loss (cross-entropy)", False, 0.0, INF, scale=1.0, unit="", tolerance=0.01),
        MetricSpec("macro_f1", "macro-F1", True, 0.0, 1.0),
        MetricSpec("mrr", "mean reciprocal rank", True, 0.0, 1.0, pykeen="inverse_harmonic_mean_rank"),
        MetricSpec("mean_rank", "mean rank", False, 1.0, INF, scale=1.0, unit="", tolerance=0.5,
                   pykeen="arithmetic_mean_rank"),
        MetricSpec("hits_at_10", "Hits@10", True, 0.0, 1.0, pykeen="hits_at_k"),
        MetricSpec("amri", "adjusted mean rank index", True, -1.0, 1.0, scale=1.0, unit="",
                   pykeen="adjusted_arithmetic_mean_rank_index"),
        MetricSpec("z_mrr", "z-scored mean reciprocal rank", True, -INF, INF, scale=1.0, unit="", tolerance=0.05,
                   pykeen="z_inverse_harmonic_mean_rank"),
    ]
}
SPLIT_PREFIXES = ("val_", "test_", "train_")


def spec_of(key: str) -> MetricSpec | None:
    """The spec of a record's metric key (``test_roc`` -> ROC AUC); None for run facts such as ``best_epoch``."""
    for prefix in SPLIT_PREFIXES:
        if key.startswith(prefix):
            return METRICS.get(key[len(prefix):])
    return None
