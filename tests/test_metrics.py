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


def test_rank_metric_specs_agree_with_pykeen():
    """Direction, range and results key of every metric that names a pykeen class are pykeen's, and every
    rank metric names one."""
    from pykeen.metrics import rank_based_metric_resolver

    from graphrepro.metrics import METRICS, RANK_METRICS

    pointed = [s for s in METRICS.values() if s.pykeen]
    assert {s.name for s in pointed} == set(RANK_METRICS) and {"mrr", "mr", "hits_at_k", "amri", "z_mrr"} <= set(RANK_METRICS)
    for spec in pointed:
        theirs = rank_based_metric_resolver.make(spec.pykeen, k=10) if spec.base == "hits_at_k" else rank_based_metric_resolver.make(spec.pykeen)
        assert spec.higher_is_better == theirs.increasing, spec.name
        low = float("-inf") if theirs.value_range.lower is None else theirs.value_range.lower
        high = float("inf") if theirs.value_range.upper is None else theirs.value_range.upper
        assert (spec.low, spec.high) == (low, high), spec.name
        assert spec.pykeen_key(k=10) == theirs.key, spec.name


def test_metric_specs_read_records():
    from graphrepro.metrics import METRICS, spec_of

    record = {"val_roc": 0.8, "val_ap": 0.6, "test_roc": 0.7, "best_epoch": 12}
    assert METRICS["roc_ap_mean"].value(record, "val_") == pytest.approx(0.7)
    assert METRICS["roc"].value(record, "test_") == 0.7 and METRICS["roc"].shown(0.7) == pytest.approx(70.0)
    assert spec_of("test_roc") is METRICS["roc"] and spec_of("best_epoch") is None
    assert not METRICS["mr"].higher_is_better and METRICS["mr"].unit == "" and METRICS["mrr"].unit == "%"
