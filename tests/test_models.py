"""Models: our layers against PyG's, the bug's probability floor, points staying on the ball."""

from __future__ import annotations

import math

import pytest
import torch
from geoopt import PoincareBall
from torch_geometric.data import Data
from torch_geometric.nn import SimpleConv
from torch_geometric.utils import add_self_loops, to_torch_coo_tensor

from graphrepro.models import LinkPredictor, build_encoder
from graphrepro.models.euclidean import GraphConv
from graphrepro.models.hgcn import fermi_dirac, layer_dims
from graphrepro.models.members import Members

ONE = Members([0])


def _graph(n=30, seed=0):
    gen = torch.Generator().manual_seed(seed)
    edges = torch.randint(0, n, (2, 80), generator=gen)
    edge_index = torch.cat([edges, edges.flip(0)], 1).unique(dim=1)
    edge_index = edge_index[:, edge_index[0] != edge_index[1]]
    looped, _ = add_self_loops(edge_index, num_nodes=n)
    adj = to_torch_coo_tensor(looped, size=(n, n)).coalesce()
    deg = torch.sparse.sum(adj, 1).to_dense()
    norm = torch.sparse_coo_tensor(adj.indices(), adj.values() / deg[adj.indices()[0]], (n, n)).coalesce()
    return edge_index, Data(adj=norm, edge_index=edge_index, num_nodes=n), torch.randn(n, 5, generator=gen)


def test_graph_conv_equals_pyg_mean_aggregation():
    """HGCN's D^-1 (A + I) propagation is PyG's mean aggregation over neighbours and self."""
    edge_index, adj, x = _graph()
    members = Members([0, 1, 2])
    layer = GraphConv(members, 5, 4, dropout=0.0, act="none", bias=True).eval()
    pyg = SimpleConv(aggr="mean", combine_root="self_loop")
    out = layer(x, adj)
    assert out.shape == (3, 30, 4)
    for s in range(3):  # each member propagates its own features with the same operator
        expected = pyg(x @ layer.linear.weight[s] + layer.linear.bias[s], edge_index)
        torch.testing.assert_close(out[s], expected, rtol=1e-5, atol=1e-6)


def test_members_initialise_and_drop_out_as_if_alone():
    together, alone = Members([3, 7]), Members([7])
    w_together, b_together = together.linear_init(5, 4)
    w_alone, b_alone = alone.linear_init(5, 4)
    torch.testing.assert_close(w_together[1], w_alone[0])
    torch.testing.assert_close(b_together[1], b_alone[0])
    x = torch.ones(2, 10, 4)
    dropped = together.dropout(x, 0.5, training=True)
    assert set(dropped.unique().tolist()) <= {0.0, 2.0} and not torch.equal(dropped[0], dropped[1])
    torch.testing.assert_close(dropped[1], alone.dropout(x[1:], 0.5, training=True)[0])


def test_layer_counting_follows_hgcn():
    assert layer_dims(11, 16, 2, "lp") == [11, 16, 16]  # two activated encoder layers
    assert layer_dims(11, 16, 2, "nc") == [11, 16]  # one encoder layer; the decoder adds the second


def test_ball_projection_floors_negative_probabilities():
    """With embeddings in the unit ball, no pair scores below 1/(1+e^2): the bug under study."""
    torch.manual_seed(0)
    _, adj, x = _graph()
    x = x * 50
    pairs = torch.randint(0, 30, (200, 2))
    for projection, clamp in [(True, None), (False, 20.0)]:
        model = LinkPredictor(build_encoder(ONE, "MLP", 5, 16, 2, "lp", "relu", 0.0, True), projection, clamp).eval()
        p = model.score(model.embed(x, adj), pairs)
        if projection:
            assert p.min() >= 1 / (1 + math.exp(2)) - 1e-6 and p.max() <= 1 / (1 + math.exp(-2)) + 1e-6
            assert model.embed(x, adj).norm(dim=-1).max() <= 1 + 1e-5
        else:
            assert p.min() < 0.01


def test_fermi_dirac_clamp_keeps_far_pairs_finite():
    d = torch.tensor([0.0, 2.0, 1e4])
    torch.testing.assert_close(fermi_dirac(d, clamp=20.0), torch.tensor([1 / (1 + math.exp(-2)), 0.5, 1 / (1 + math.exp(20))]))
    far = torch.tensor([1e4], requires_grad=True)
    fermi_dirac(far, clamp=20.0).sum().backward()
    assert torch.isfinite(far.grad).all()  # the debugged decoder's gradient stays a number
    far.grad = None
    fermi_dirac(far).sum().backward()
    assert torch.isnan(far.grad).all()  # HGCN's unclamped decoder: exp overflows and the gradient is NaN


@pytest.mark.parametrize("model, c", [("HGCN", 1.0), ("HGCN", None), ("HNN", 0.5)])
def test_hyperbolic_embeddings_stay_in_the_ball(model, c):
    torch.manual_seed(0)
    _, adj, x = _graph()
    encoder = build_encoder(Members([0, 1]), model, 5, 16, 2, "lp", "relu", 0.0, True, c)
    h = encoder(x * 10, adj)
    assert h.shape == (2, 30, 16)
    radius = 1 / math.sqrt(float(encoder.c.detach()[0]))
    assert h.norm(dim=-1).max() < radius
    trainable = [p for p in encoder.parameters() if p.shape == (2, 1, 1) and p.requires_grad]
    assert len(trainable) == (3 if (model == "HGCN" and c is None) else 0)  # per-layer + model curvature


def test_hyperbolic_distance_matches_geoopt_manifold():
    torch.manual_seed(1)
    ball = PoincareBall(c=1.0)
    a, b = ball.random_normal(10, 4, std=0.3), ball.random_normal(10, 4, std=0.3)
    model = LinkPredictor(build_encoder(ONE, "HGCN", 5, 4, 2, "lp", "relu", 0.0, True, 1.0), False, None)
    pairs = torch.stack([torch.arange(10), torch.arange(10, 20)], 1)
    expected = fermi_dirac(ball.dist(a, b) ** 2)
    torch.testing.assert_close(model.score(torch.cat([a, b])[None], pairs)[0], expected, rtol=1e-5, atol=1e-6)


def test_batched_mobius_matvec_matches_geoopt():
    from geoopt.manifolds.stereographic import math as pmath

    from graphrepro.models.poincare import mobius_matvec

    torch.manual_seed(2)
    weight, x = torch.randn(3, 4, 6), torch.randn(3, 8, 6) * 0.1
    c = torch.tensor([0.5, 1.0, 2.0]).view(3, 1, 1)
    out = mobius_matvec(weight, x, c)
    for s in range(3):
        torch.testing.assert_close(out[s], pmath.mobius_matvec(weight[s], x[s], k=-c[s, 0]), rtol=1e-5, atol=1e-6)


def _pyg_graph(n=30, seed=3):
    import numpy as np
    import scipy.sparse as sp

    from graphrepro.data.hgcn import _graph_data

    edge_index, _, x = _graph(n, seed)
    adj = sp.coo_matrix((np.ones(edge_index.shape[1]), edge_index.numpy()), shape=(n, n)).tocsr()
    return edge_index, _graph_data(adj, x.numpy(), normalize_feats=False, augment=False)


@pytest.mark.parametrize("kind", ["SAGE", "SGC", "GAT"])
def test_gnn_layers_match_pyg(kind):
    """Each member of our stacked SAGE, SGC and GAT layers computes what PyG's layer computes with its weights."""
    from torch_geometric.nn import GATConv, SAGEConv, SGConv

    from graphrepro.models.hgcn import EUCLIDEAN

    edge_index, graph = _pyg_graph()
    members = Members([0, 1])
    layer = EUCLIDEAN[kind](members, 5, 8, 0.0, "none", True).eval()
    out = layer(graph.x, graph)
    for s in range(2):
        with torch.no_grad():
            if kind == "SAGE":
                ref = SAGEConv(5, 8)
                ref.lin_l.weight.copy_(layer.neighbours.weight[s].T)
                ref.lin_l.bias.copy_(layer.neighbours.bias[s, 0])
                ref.lin_r.weight.copy_(layer.root.weight[s].T)
            elif kind == "SGC":
                ref = SGConv(5, 8, K=2)
                ref.lin.weight.copy_(layer.linear.weight[s].T)
                ref.lin.bias.copy_(layer.linear.bias[s, 0])
            else:
                ref = GATConv(5, 2, heads=4)
                ref.lin.weight.copy_(layer.linear.weight[s].T)
                ref.att_src.copy_(layer.att_src[s][None])
                ref.att_dst.copy_(layer.att_dst[s][None])
                ref.bias.copy_(layer.bias[s, 0])
        torch.testing.assert_close(out[s], ref(graph.x, edge_index), rtol=1e-4, atol=1e-5)
