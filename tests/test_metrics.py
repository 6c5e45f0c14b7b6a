"""Our per-epoch metrics against scikit-learn, including ties."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

from graphrepro.metrics import average_precision, node_metrics, roc_auc


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("levels", [None, 4])  # None: continuous scores; 4: heavy ties
def test_link_metrics_match_sklearn(seed, levels):
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(0.5, 1, 200), rng.normal(0, 1, 300)
    if levels:
        pos, neg = np.round(pos * levels) / levels, np.round(neg * levels) / levels
    labels, scores = np.r_[np.ones(200), np.zeros(300)], np.r_[pos, neg]
    assert roc_auc(pos, neg) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert average_precision(pos, neg) == pytest.approx(average_precision_score(labels, scores), abs=1e-12)


def test_hand_computed_case():
    # positives 0.9, 0.4; negatives 0.4, 0.1: pairs won 1 + 1 + 0.5 + 1 of 4
    assert roc_auc(np.array([0.9, 0.4]), np.array([0.4, 0.1])) == 0.875
    # thresholds 0.9 (P=1, R=.5) then 0.4 (P=2/3, R=1): AP = .5*1 + .5*2/3
    assert average_precision(np.array([0.9, 0.4]), np.array([0.4, 0.1])) == pytest.approx(0.5 + 1 / 3)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_f1_matches_sklearn(n_classes):
    rng = np.random.default_rng(n_classes)
    pred, labels = rng.integers(0, n_classes, 500), rng.integers(0, n_classes, 500)
    average = "binary" if n_classes == 2 else "micro"
    got = node_metrics(pred, labels, n_classes)
    assert got["f1"] == pytest.approx(f1_score(labels, pred, average=average))
    assert got["acc"] == pytest.approx(np.mean(pred == labels))
