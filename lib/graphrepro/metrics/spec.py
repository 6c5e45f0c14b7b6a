"""Every metric the book reports, in one registry: its name, direction, range, how tables show it, how closely
``verify`` must find it again, the pykeen class of the same definition, and for a rank metric how it derives
from a base metric. ``ranking`` computes the rank metrics; ``tests/test_metrics.py`` checks the registry
against pykeen's own directions, ranges and keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

INF = float("inf")
RANK_KINDS = ("base", "ratio", "reindex", "z")  # M; M / E[M]; (M - E) / (1 - E); ±(M - E) / sqrt(V)


def link_selection_score(metrics: Mapping[str, float]) -> float:
    """HGCN's link-prediction model selection: the mean of validation ROC AUC and AP."""
    return 0.5 * (metrics["roc"] + metrics["ap"])


@dataclass(frozen=True)
class Metric:
    """A metric: ``name`` (as records and code spell it), ``label`` (as the book prints it), direction and range,
    display ``scale`` and ``unit``, ``verify``'s absolute ``tolerance`` on the raw value, ``pykeen``'s class of the
    same definition (None where pykeen has none), ``derived`` (computed from a record's other metrics), and for
    a rank metric its ``base`` metric and ``kind`` (one of ``RANK_KINDS``)."""

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
    base: str | None = None
    kind: str | None = None

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

    def pykeen_key(self, k: int = 10) -> str:
        """The key pykeen's results give this metric under (``InverseHarmonicMeanRank`` -> ``inverse_harmonic_mean_rank``;
        plain Hits@k carries its ``k``, ``hits_at_10``, the adjusted and z-scored ones do not)."""
        if self.pykeen is None:
            raise KeyError(f"{self.name} has no pykeen counterpart")
        key = re.sub(r"(?<!^)(?=[A-Z])", "_", self.pykeen).lower()
        return f"hits_at_{k}" if key == "hits_at_k" else key


def _rank(name: str, label: str, base: str, kind: str, higher: bool, low: float, high: float, pykeen: str,
          **shown: float | str) -> Metric:
    """A rank metric, shown as a plain number unless ``shown`` says otherwise."""
    return Metric(name, label, higher, low, high, **{"scale": 1.0, "unit": "", **shown}, pykeen=pykeen, base=base, kind=kind)


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("roc", "ROC AUC", True, 0.0, 1.0),
    Metric("ap", "average precision", True, 0.0, 1.0),
    Metric("roc_ap_mean", "mean of ROC AUC and AP (HGCN's link selection)", True, 0.0, 1.0, derived=link_selection_score),
    Metric("acc", "accuracy", True, 0.0, 1.0),
    Metric("f1", "F1 (binary for two classes, else micro)", True, 0.0, 1.0),
    Metric("micro_f1", "micro-F1", True, 0.0, 1.0),
    Metric("macro_f1", "macro-F1", True, 0.0, 1.0),
    Metric("loss", "loss (cross-entropy)", False, 0.0, INF, scale=1.0, unit=""),
    _rank("mr", "mean rank", "mr", "base", False, 1.0, INF, "ArithmeticMeanRank", tolerance=0.5),
    _rank("mrr", "mean reciprocal rank", "mrr", "base", True, 0.0, 1.0, "InverseHarmonicMeanRank", scale=100.0, unit="%"),
    _rank("hits_at_k", "Hits@k", "hits_at_k", "base", True, 0.0, 1.0, "HitsAtK", scale=100.0, unit="%"),
    _rank("gmr", "geometric mean rank", "gmr", "base", False, 1.0, INF, "GeometricMeanRank", tolerance=0.5),
    _rank("amr", "adjusted mean rank (MR / E[MR])", "mr", "ratio", False, 0.0, 2.0, "AdjustedArithmeticMeanRank"),
    _rank("amri", "adjusted mean rank index", "mr", "reindex", True, -1.0, 1.0, "AdjustedArithmeticMeanRankIndex"),
    _rank("amrr", "adjusted mean reciprocal rank", "mrr", "reindex", True, -INF, 1.0, "AdjustedInverseHarmonicMeanRank"),
    _rank("ahk", "adjusted Hits@k", "hits_at_k", "reindex", True, -INF, 1.0, "AdjustedHitsAtK"),
    _rank("agmri", "adjusted geometric mean rank index", "gmr", "reindex", True, -INF, 1.0, "AdjustedGeometricMeanRankIndex"),
    _rank("z_mr", "z-scored mean rank", "mr", "z", True, -INF, INF, "ZArithmeticMeanRank", tolerance=0.05),
    _rank("z_mrr", "z-scored mean reciprocal rank", "mrr", "z", True, -INF, INF, "ZInverseHarmonicMeanRank", tolerance=0.05),
    _rank("z_hk", "z-scored Hits@k", "hits_at_k", "z", True, -INF, INF, "ZHitsAtK", tolerance=0.05),
    _rank("z_gmr", "z-scored geometric mean rank", "gmr", "z", True, -INF, INF, "ZGeometricMeanRank", tolerance=0.05),
]}
RANK_METRICS: dict[str, Metric] = {name: m for name, m in METRICS.items() if m.kind}
SPLIT_PREFIXES = ("val_", "test_", "train_")


def spec_of(key: str) -> Metric | None:
    """The metric of a record's key (``test_roc`` -> ROC AUC); None for run facts such as ``best_epoch``."""
    for prefix in SPLIT_PREFIXES:
        if key.startswith(prefix):
            return METRICS.get(key[len(prefix):])
    return None
