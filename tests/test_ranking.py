"""Rank metrics (``graphrepro.metrics.ranking``) against the reference notes' fixtures, pykeen 1.11.1 on
random inputs, Monte Carlo draws of the null model, and the LRGB worked example."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphrepro.metrics import ranking as R

C, RANKS = np.array([10, 20, 50]), np.array([1, 4, 30])


def test_fixtures_of_the_reference_notes():
    moments = {"mr": (13.8333333333, 27.75), "mrr": (0.1875893050, 0.0156713971), "hits_at_k": (0.17, 0.0437666667),
               "gmr": (9.9073743900, 16.1686686010)}
    for name, (e, v) in moments.items():
        assert R.expectation(name, C, k=3) == pytest.approx(e, abs=1e-9)
        assert R.variance(name, C, k=3) == pytest.approx(v, abs=1e-9)
    values = {"mr": 35 / 3, "mrr": 0.427778, "hits_at_k": 0.333333, "gmr": 4.932424, "amr": 0.843373, "amri": 0.168831,
              "amrr": 0.295649, "ahk": 0.196787, "agmri": 0.558520, "z_mr": 0.411302, "z_mrr": 1.918661,
              "z_hk": 0.780734, "z_gmr": 1.237233}
    for name, value in values.items():
        assert R.metric(name, RANKS, C, k=3) == pytest.approx(value, abs=1e-6)
    assert R.expectation("mr", [10]) == 5.5 and R.variance("mr", [10]) == pytest.approx(8.25)
    assert R.expectation("mrr", [10]) == pytest.approx(0.2928968, abs=1e-7)


def _pykeen(name: str, k: int):
    from pykeen.metrics import ranking as P

    cls = getattr(P, R.RANK_METRICS[name].pykeen)
    return cls(k=k) if "hits_at_k" == R.RANK_METRICS[name].base else cls()


@pytest.mark.parametrize("draw", range(12))
def test_every_metric_and_its_moments_agree_with_pykeen(draw):
    rng = np.random.default_rng(draw)
    n = int(rng.integers(1, 400))
    shape = ["uniform", "one value", "small", "huge", "mixed"][draw % 5]
    c = {"uniform": rng.integers(1, 2000, n), "one value": np.full(n, int(rng.integers(2, 500))),
         "small": rng.integers(1, 6, n), "huge": rng.integers(10_000, 50_000, n),
         "mixed": np.where(rng.random(n) < 0.5, rng.integers(1, 10, n), rng.integers(100, 40_000, n))}[shape]
    ranks = np.floor(rng.random(n) * c) + 1
    if draw % 2:  # realistic ranks from ties: half-integers
        ranks = np.minimum(ranks + 0.5 * (rng.random(n) < 0.3), c)
    k = int(rng.choice([1, 3, 10, 50]))
    for name in R.RANK_METRICS:
        theirs = _pykeen(name, k)
        assert R.metric(name, ranks, c, k=k) == pytest.approx(float(theirs(ranks=ranks, num_candidates=c)), rel=1e-9, abs=1e-9), name
        assert R.expectation(name, c, k=k) == pytest.approx(float(theirs.expected_value(num_candidates=c)), rel=1e-9, abs=1e-9), name
        # GMR's variance is a difference of two large products: pykeen's log-space form loses ~1e-9 of it
        # to cancellation on large counts (ours is checked against 50-digit arithmetic below)
        rel = 1e-7 if R.RANK_METRICS[name].base == "gmr" else 1e-9
        assert R.variance(name, c, k=k) == pytest.approx(float(theirs.variance(num_candidates=c)), rel=rel, abs=1e-9), name


def test_gmr_variance_against_fifty_digit_arithmetic():
    import mpmath

    mpmath.mp.dps = 50
    c = np.random.default_rng(3).integers(2_000, 9_000, 12)
    n = len(c)
    first = second = mpmath.mpf(1)
    for count in c.tolist():
        first *= mpmath.fsum(mpmath.power(j, mpmath.mpf(1) / n) for j in range(1, count + 1)) / count
        second *= mpmath.fsum(mpmath.power(j, mpmath.mpf(2) / n) for j in range(1, count + 1)) / count
    assert R.variance("gmr", c) == pytest.approx(float(second - first**2), rel=1e-10)


@pytest.mark.parametrize("name", list(R.RANK_METRICS))
@pytest.mark.slow
def test_closed_form_moments_match_monte_carlo_draws(name):
    rng = np.random.default_rng(7)
    c = np.array([3, 8, 40, 200, 1000])
    draws = 40_000
    ranks = np.floor(rng.random((draws, len(c))) * c) + 1
    values = np.array([R.metric(name, row, c, k=5) for row in ranks])
    e, v = R.expectation(name, c, k=5), R.variance(name, c, k=5)
    assert abs(values.mean() - e) < 5 * np.sqrt(v / draws) + 1e-12
    assert values.var(ddof=1) == pytest.approx(v, rel=0.05)


def test_ranks_from_scores_tie_rules_and_filtering_agree_with_pykeen():
    from pykeen.evaluation.ranks import Ranks

    rng = np.random.default_rng(1)
    scores = rng.integers(0, 6, (50, 30)).astype(float)  # many ties
    true = rng.integers(0, 30, 50)
    exclude = rng.random((50, 30)) < 0.2
    ours = R.ranks_from_scores(scores, true, exclude)
    masked = scores.copy()
    keep = ~exclude
    keep[np.arange(50), true] = True
    masked[~keep] = np.nan
    theirs = Ranks.from_scores(torch.as_tensor(scores[np.arange(50), true]).unsqueeze(1), torch.as_tensor(masked))
    np.testing.assert_array_equal(ours["optimistic"], theirs.optimistic.numpy())
    np.testing.assert_array_equal(ours["pessimistic"], theirs.pessimistic.numpy())
    np.testing.assert_array_equal(ours["realistic"], theirs.realistic.numpy())
    np.testing.assert_array_equal(ours["num_candidates"], theirs.number_of_options.numpy())


def test_constant_scores_are_rewarded_only_by_optimistic_ranks():
    ranks = R.ranks_from_scores(np.zeros((4, 100)), [0, 1, 2, 3])
    assert (ranks["optimistic"] == 1).all() and (ranks["pessimistic"] == 100).all()
    assert R.mrr(ranks["optimistic"]) == 1.0
    assert R.metric("amri", ranks["realistic"], ranks["num_candidates"]) == pytest.approx(0.0)  # exactly chance


def test_the_lrgb_worked_example_raw_filtered_and_extended_filtered():
    # one head; candidates: itself, true tails t1 and t2, false x1 and x2
    scores = np.array([[0.95, 0.90, 0.80, 0.60, 0.40]] * 2)
    queries = np.array([1, 2])  # (h, t1) and (h, t2)
    other_true = np.array([[False, False, True, False, False], [False, True, False, False, False]])
    self_loop = np.array([[True, False, False, False, False]] * 2)
    raw = R.ranks_from_scores(scores, queries)["realistic"]
    filtered = R.ranks_from_scores(scores, queries, other_true)["realistic"]
    extended = R.ranks_from_scores(scores, queries, other_true | self_loop)["realistic"]
    assert round(R.mrr(raw), 3) == 0.417 and R.mrr(filtered) == 0.5 and R.mrr(extended) == 1.0


def test_torch_input_and_bad_candidate_counts():
    assert R.mrr(torch.tensor([1.0, 2.0])) == 0.75
    with pytest.raises(ValueError, match="whole numbers"):
        R.expectation("mr", [0, 3])
    with pytest.raises(KeyError, match="unknown rank metric"):
        R.metric("mrrr", [1], [2])
