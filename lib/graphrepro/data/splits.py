"""Node splits for model assessment (Errica et al. 2020, as chapter 3 uses them): k stratified folds,
each training part split again into an inner training set and a validation set, and sparse training
sets drawn from the inner training set (20 nodes per class, or 20·K nodes stratified). Everything is a
pure function of the labels and a seed; the fold index belongs in a run's config (and so its key)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split


@dataclass(frozen=True)
class Fold:
    """One assessment fold: disjoint node index arrays."""

    index: int
    train: np.ndarray  # inner training set
    valid: np.ndarray  # early stopping and model selection
    test: np.ndarray  # the held-out fold


def stratified_folds(labels: np.ndarray, k: int, seed: int, valid_fraction: float = 0.1) -> list[Fold]:
    """``k`` stratified folds; in each, the other folds are split (stratified) into inner train and
    validation with ``valid_fraction`` of them in validation."""
    labels = np.asarray(labels)
    nodes = np.arange(len(labels))
    outer = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    folds = []
    for i, (rest, test) in enumerate(outer.split(nodes, labels)):
        train, valid = train_test_split(rest, test_size=valid_fraction, stratify=labels[rest], random_state=seed + i)
        folds.append(Fold(i, np.sort(train), np.sort(valid), np.sort(test)))
    return folds


def sparse_balanced(train: np.ndarray, labels: np.ndarray, per_class: int, seed: int) -> np.ndarray:
    """``per_class`` nodes of every class drawn from ``train`` (all of a class that has fewer)."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    picked = [rng.choice(members, size=min(per_class, len(members)), replace=False)
              for c in np.unique(labels[train]) for members in [train[labels[train] == c]]]
    return np.sort(np.concatenate(picked))


def sparse_stratified(train: np.ndarray, labels: np.ndarray, per_class: int, seed: int) -> np.ndarray:
    """``per_class`` × K nodes drawn from ``train`` in proportion to the classes (K: classes present)."""
    labels = np.asarray(labels)
    size = per_class * len(np.unique(labels[train]))
    if size >= len(train):
        return np.sort(train)
    picked, _ = train_test_split(train, train_size=size, stratify=labels[train], random_state=seed)
    return np.sort(picked)


def holdout_valid(train: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random ``fraction`` of ``train`` as validation (HGB's split of ``label.dat``), the rest as training."""
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(np.asarray(train))
    cut = int(round(len(shuffled) * fraction))
    return np.sort(shuffled[cut:]), np.sort(shuffled[:cut])
