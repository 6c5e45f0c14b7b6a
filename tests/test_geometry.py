"""Geometry on graphs with known answers: complete graphs, cycles, stars, trees, the tripod."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from graphrepro import geometry
from graphrepro.data.synthetic import tree_dataset, tree_graph


def _adj(graph: nx.Graph) -> sp.csr_matrix:
    return sp.csr_matrix(nx.to_scipy_sparse_array(graph, nodelist=sorted(graph)))


@pytest.mark.parametrize("n", [4, 7])
def test_ricci_complete_graph(n):
    kappa = geometry.ollivier_ricci(_adj(nx.complete_graph(n)))
    np.testing.assert_allclose(kappa, (n - 2) / (n - 1))


def test_ricci_cycle_and_star_are_flat():
    np.testing.assert_allclose(geometry.ollivier_ricci(_adj(nx.cycle_graph(8))), 0.0, atol=1e-12)
    np.testing.assert_allclose(geometry.ollivier_ricci(_adj(nx.star_graph(5))), 0.0, atol=1e-12)


def test_ricci_tree_edge_between_branching_nodes():
    # x and y of degree 3: move a1 -> x, y -> b1 (1/3 each) and a2 -> b2 (distance 3): W1 = 5/3
    graph = nx.Graph([("x", "y"), ("x", "a1"), ("x", "a2"), ("y", "b1"), ("y", "b2")])
    nodes = sorted(graph)
    kappa = geometry.ollivier_ricci(_adj(graph), edges=np.array([[nodes.index("x"), nodes.index("y")]]))
    assert kappa[0] == pytest.approx(-2 / 3)


def test_delta_of_trees_cycles_and_grids():
    assert geometry.gromov_delta(_adj(nx.balanced_tree(2, 4)), samples=20_000)["delta"] == 0.0
    exact = geometry.gromov_delta(_adj(nx.cycle_graph(8)))
    assert exact["exact"] and exact["delta"] == 2.0  # C_8: antipodal quadruple gives (8 - 4) / 2
    # 4x4 grid, the four corners: opposite corners are 6 apart, adjacent ones 3: (12 - 6) / 2
    assert geometry.gromov_delta(_adj(nx.grid_2d_graph(4, 4)))["delta"] == 3.0


def test_tree1111_shape_and_features():
    adj, parents = tree_graph(10, 3)
    assert adj.shape == (1111, 1111) and adj.nnz == 2 * 1110 and (parents[1:11] == 0).all()
    _, x0 = tree_dataset(gamma=0.0, seed=1)
    _, x1 = tree_dataset(gamma=1.0, seed=1)
    assert x0.shape == (1111, 1000)
    assert abs(np.corrcoef(x0[parents[1:]].ravel(), x0[1:].ravel())[0, 1]) < 0.01  # γ = 0: independent
    assert np.corrcoef(x1[parents[1:]].ravel(), x1[1:].ravel())[0, 1] > 0.5  # γ = 1: inherited


@pytest.mark.parametrize("curvature", [0.0, 0.5, 1.0, 4.0, 25.0])
def test_tripod_distance_matches_closed_form(curvature):
    assert geometry.tripod_leaf_distance(curvature) == pytest.approx(geometry.tripod_leaf_distance_closed_form(curvature), rel=1e-9)


def test_tripod_limits():
    assert geometry.tripod_leaf_distance(0.0) == pytest.approx(math.sqrt(3))
    assert 2.0 - geometry.tripod_leaf_distance(400.0) < 0.05
