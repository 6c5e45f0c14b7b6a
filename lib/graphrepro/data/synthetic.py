"""Synthetic trees Tree(b, ℓ, γ, δ, D) of Katsman & Gilbert: a b-ary tree of ℓ levels below the root,
root features x ~ D and each child's features γ·parent + δ·v with fresh v ~ D (here D = N(0, I_dim))."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def tree_graph(branching: int, levels: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Adjacency of the full tree (breadth-first node order, root 0) and each node's parent (-1 for the root)."""
    parents = [-1]
    frontier = [0]
    for _ in range(levels):
        nxt = []
        for parent in frontier:
            for _ in range(branching):
                parents.append(parent)
                nxt.append(len(parents) - 1)
        frontier = nxt
    parents = np.array(parents)
    child = np.arange(1, len(parents))
    n = len(parents)
    adj = sp.coo_matrix((np.ones(n - 1), (child, parents[1:])), shape=(n, n))
    return (adj + adj.T).tocsr(), parents


def tree_features(parents: np.ndarray, gamma: float, delta: float, dim: int, seed: int) -> np.ndarray:
    """Features generated level by level: x_root ~ N(0, I), x_child = γ x_parent + δ v, v ~ N(0, I)."""
    rng = np.random.default_rng(seed)
    feats = np.empty((len(parents), dim))
    feats[0] = rng.standard_normal(dim)
    for node in range(1, len(parents)):  # breadth-first order: parents come first
        feats[node] = gamma * feats[parents[node]] + delta * rng.standard_normal(dim)
    return feats


def tree_dataset(branching: int = 10, levels: int = 3, gamma: float = 0.0, delta: float = 1.0,
                 dim: int = 1000, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """A sample of Tree(b, ℓ, γ, δ, N(0, I_dim)); Tree1111 is the default (b=10, ℓ=3, γ=0, δ=1)."""
    adj, parents = tree_graph(branching, levels)
    return adj, tree_features(parents, gamma, delta, dim, seed)
