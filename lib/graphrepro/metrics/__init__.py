"""Evaluation metrics as HGCN computes them (ROC AUC and AP for links, binary or micro F1 for nodes); the
registry of every metric the book reports is ``spec`` (re-exported here), the rank metrics ``ranking``.

Written in numpy because they run every epoch; ``tests/test_metrics.py`` checks them against scikit-learn.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from graphrepro.metrics.spec import INF, METRICS, RANK_METRICS, Metric, link_selection_score, spec_of

__all__ = ["INF", "METRICS", "RANK_METRICS", "Metric", "average_precision", "link_metrics", "link_selection_score",
           "multilabel_ap", "node_metrics", "roc_auc", "spec_of"]


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
