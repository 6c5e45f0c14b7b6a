"""Graph geometry: Gromov δ-hyperbolicity, Ollivier–Ricci curvature (POT), and the tripod embedding."""

from __future__ import annotations

import math

import numpy as np
import ot
import scipy.sparse as sp
import torch
from geoopt import Lorentz
from scipy.sparse.csgraph import shortest_path


def hop_distances(adj: sp.spmatrix) -> np.ndarray:
    """All-pairs shortest-path lengths (in hops) of an unweighted graph; ``inf`` between components."""
    return shortest_path(sp.csr_matrix(adj), method="D", unweighted=True, directed=False)


def four_point_deltas(dist: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """δ of each quadruple (rows of node indices): half the gap between the two largest pair sums."""
    x, y, z, w = quads.T
    sums = np.sort(np.stack([dist[x, y] + dist[z, w], dist[x, z] + dist[y, w], dist[x, w] + dist[y, z]]), axis=0)
    return (sums[2] - sums[1]) / 2


def gromov_delta(adj: sp.spmatrix, samples: int | None = 200_000, seed: int = 0, exact_below: int = 60) -> dict[str, float]:
    """Gromov δ by the four-point condition on the largest component: exact for small graphs, else the
    maximum over ``samples`` random quadruples (a lower bound, reported with its sample size)."""
    dist = hop_distances(adj)
    component = np.flatnonzero(np.isfinite(dist[np.argmax(np.isfinite(dist).sum(1))]))
    dist = dist[np.ix_(component, component)]
    n = len(component)
    if n <= exact_below or samples is None:
        grid = np.stack(np.meshgrid(*[np.arange(n)] * 4, indexing="ij"), -1).reshape(-1, 4)
        return {"delta": float(four_point_deltas(dist, grid).max()), "quadruples": len(grid), "exact": True, "nodes": n}
    rng = np.random.default_rng(seed)
    best = 0.0
    for start in range(0, samples, 100_000):
        quads = rng.integers(0, n, (min(100_000, samples - start), 4))
        best = max(best, float(four_point_deltas(dist, quads).max()))
    return {"delta": best, "quadruples": samples, "exact": False, "nodes": n}


def ollivier_ricci(adj: sp.spmatrix, edges: np.ndarray | None = None, dist: np.ndarray | None = None) -> np.ndarray:
    """Ollivier–Ricci curvature 1 - W1(m_x, m_y) of each edge, with m_x uniform on the neighbours of x,
    the shortest-path metric, and W1 solved exactly by POT's network simplex (``ot.emd2``)."""
    adj = sp.csr_matrix(adj)
    adj.setdiag(0)
    adj.eliminate_zeros()
    dist = hop_distances(adj) if dist is None else dist
    if edges is None:
        edges = np.stack(sp.triu(adj).nonzero(), axis=1)
    curvatures = np.empty(len(edges))
    for i, (x, y) in enumerate(edges):
        nx_, ny_ = adj.indices[adj.indptr[x] : adj.indptr[x + 1]], adj.indices[adj.indptr[y] : adj.indptr[y + 1]]
        a, b = np.full(len(nx_), 1 / len(nx_)), np.full(len(ny_), 1 / len(ny_))
        cost = np.ascontiguousarray(dist[np.ix_(nx_, ny_)])
        curvatures[i] = 1.0 - ot.emd2(a, b, cost) / dist[x, y]
    return curvatures


def tripod_leaf_distance(curvature: float) -> float:
    """Leaf-to-leaf geodesic distance of a tripod (three unit edges at 120°) in the hyperboloid of
    curvature -``curvature``, from geoopt's own ``Lorentz.dist``; 0 gives the Euclidean √3."""
    angles = torch.tensor([0.0, 2 * math.pi / 3], dtype=torch.float64)
    tangent = torch.stack([torch.zeros(2, dtype=torch.float64), angles.cos(), angles.sin()], dim=1)
    if curvature == 0:
        return float((tangent[0] - tangent[1]).norm())
    manifold = Lorentz(k=1.0 / curvature).double()  # geoopt's k is minus the inverse curvature
    leaves = manifold.expmap0(tangent)
    return float(manifold.dist(leaves[0], leaves[1]))


def tripod_leaf_distance_closed_form(curvature: float) -> float:
    """The same distance from the hyperbolic law of cosines: cosh(√K d) = cosh²√K + ½ sinh²√K."""
    if curvature == 0:
        return math.sqrt(3)
    s = math.sqrt(curvature)
    return math.acosh(math.cosh(s) ** 2 + 0.5 * math.sinh(s) ** 2) / s
