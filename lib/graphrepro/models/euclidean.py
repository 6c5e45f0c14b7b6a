"""Euclidean layers as HGCN writes them (linear map, dropout on its output, propagation, activation),
stacked over the members of a batch of runs: activations are [members, nodes, features]."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F
from torch_geometric.data import Data

from graphrepro.models.members import Members
from graphrepro.sparse import sparse_mm

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": F.relu,
    "elu": F.elu,
    "tanh": torch.tanh,
    "none": lambda x: x,
}


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The activation function called ``name`` (relu, elu, tanh or none)."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"unknown activation {name!r}; choose from {sorted(ACTIVATIONS)}") from None


def propagate(adj: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """Multiply every member's [nodes, features] slice by the same sparse matrix, in one product; input
    features shared by all members ([nodes, features]) are propagated once."""
    if h.dim() == 2:
        return sparse_mm(adj, h)
    s, n, d = h.shape
    out = sparse_mm(adj, h.permute(1, 0, 2).reshape(n, s * d))
    return out.reshape(adj.shape[0], s, d).permute(1, 0, 2)


class StackedLinear(nn.Module):
    """One nn.Linear per member, as a [members, in, out] weight; input [nodes, in] (shared) or [S, nodes, in]."""

    def __init__(self, members: Members, in_dim: int, out_dim: int, bias: bool) -> None:
        super().__init__()
        weight, b = members.linear_init(in_dim, out_dim)
        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(b) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x @ W_s + b_s for every member s."""
        if x.dim() == 2:
            x = x.expand(self.weight.shape[0], *x.shape)
        # bmm runs one product per member, so a member computes exactly what it computes alone
        out = torch.bmm(x, self.weight)
        return out + self.bias if self.bias is not None else out


class Dense(nn.Module):
    """HGCN's ``Linear``: linear map, dropout on the output, activation."""

    def __init__(self, members: Members, in_dim: int, out_dim: int, dropout: float, act: str, bias: bool) -> None:
        super().__init__()
        self.members = members
        self.linear = StackedLinear(members, in_dim, out_dim, bias)
        self.dropout = dropout
        self.act = activation(act)

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Transform node features; the graph is ignored (features only)."""
        return self.act(self.members.dropout(self.linear(x), self.dropout, self.training))


class GraphConv(Dense):
    """HGCN's ``GraphConvolution``: linear map, dropout, the normalised adjacency, activation."""

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Transform, then average over each node's neighbourhood (self included)."""
        hidden = self.members.dropout(self.linear(x), self.dropout, self.training)
        return self.act(propagate(graph.adj, hidden))


class SAGEConv(nn.Module):
    """GraphSAGE with the mean aggregator (as PyG's ``SAGEConv``): W_neigh mean_{j in N(i)} x_j + W_root x_i,
    then dropout and activation."""

    def __init__(self, members: Members, in_dim: int, out_dim: int, dropout: float, act: str, bias: bool) -> None:
        super().__init__()
        self.members = members
        self.neighbours = StackedLinear(members, in_dim, out_dim, bias)
        self.root = StackedLinear(members, in_dim, out_dim, bias=False)
        self.dropout = dropout
        self.act = activation(act)

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Combine each node's own features with the mean of its neighbours'."""
        hidden = self.neighbours(propagate(graph.adj_mean, x)) + self.root(x)
        return self.act(self.members.dropout(hidden, self.dropout, self.training))


class SGConv(Dense):
    """SGC (Wu et al. 2019, as PyG's ``SGConv`` with K = 2): two steps of D^-1/2 (A + I) D^-1/2, then a
    linear map; no nonlinearity inside."""

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Propagate twice with the symmetric normalisation, then transform."""
        hidden = propagate(graph.adj_sym, propagate(graph.adj_sym, x))
        return self.act(self.members.dropout(self.linear(hidden), self.dropout, self.training))


class GATConv(nn.Module):
    """Graph attention (Veličković et al. 2018, as PyG's ``GATConv``): ``heads`` heads of out_dim / heads
    channels, concatenated; self-loops added; LeakyReLU(0.2) scores, softmax over each node's
    neighbours, dropout on the attention weights. Members and heads share one scatter over the edges."""

    def __init__(self, members: Members, in_dim: int, out_dim: int, dropout: float, act: str, bias: bool, heads: int = 4) -> None:
        super().__init__()
        if out_dim % heads:
            heads = 1  # e.g. a class count that the heads do not divide
        self.members, self.heads, self.channels = members, heads, out_dim // heads
        self.linear = StackedLinear(members, in_dim, out_dim, bias=False)
        bound = (6.0 / (self.channels + 1)) ** 0.5  # glorot on [1, heads, channels], as PyG
        self.att_src = nn.Parameter(members.uniform((heads, self.channels), bound))
        self.att_dst = nn.Parameter(members.uniform((heads, self.channels), bound))
        self.bias = nn.Parameter(torch.zeros(len(members), 1, out_dim)) if bias else None
        self.dropout = dropout
        self.act = activation(act)

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Attend over each node's neighbours (itself included) and combine their transformed features."""
        from torch_geometric.utils import (  # heavy: loads PyG only when this layer runs
            add_remaining_self_loops,
            softmax,
        )

        s, heads, channels = len(self.members), self.heads, self.channels
        h = self.linear(x).view(s, -1, heads, channels)  # [S, N, H, C]
        n = h.shape[1]
        edge_index, _ = add_remaining_self_loops(graph.edge_index, num_nodes=n)
        src, dst = edge_index
        alpha_src = (h * self.att_src[:, None]).sum(-1)  # [S, N, H]
        alpha_dst = (h * self.att_dst[:, None]).sum(-1)
        scores = F.leaky_relu(alpha_src[:, src] + alpha_dst[:, dst], 0.2)  # [S, E, H]
        weights = softmax(scores.permute(1, 0, 2).reshape(len(src), s * heads), dst, num_nodes=n)  # [E, S*H]
        weights = self.members.dropout(weights.view(-1, s, heads).permute(1, 0, 2), self.dropout, self.training)
        messages = h[:, src] * weights[..., None]  # [S, E, H, C]
        out = torch.zeros_like(h).index_add_(1, dst, messages).reshape(s, n, heads * channels)
        if self.bias is not None:
            out = out + self.bias
        return self.act(out)
