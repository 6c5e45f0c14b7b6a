"""Euclidean layers as HGCN writes them (linear map, dropout on its output, propagation, activation),
stacked over the members of a batch of runs: activations are [members, nodes, features]."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F

from graphrepro.models.members import Members

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
    """Multiply every member's [nodes, features] slice by the same sparse matrix, in one product."""
    s, n, d = h.shape
    out = torch.sparse.mm(adj, h.permute(1, 0, 2).reshape(n, s * d))
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

    def forward(self, x: torch.Tensor, adj: torch.Tensor | None = None) -> torch.Tensor:
        """Transform node features; ``adj`` is ignored (features only)."""
        return self.act(self.members.dropout(self.linear(x), self.dropout, self.training))


class GraphConv(Dense):
    """HGCN's ``GraphConvolution``: linear map, dropout, the normalised adjacency, activation."""

    def forward(self, x: torch.Tensor, adj: torch.Tensor | None = None) -> torch.Tensor:
        """Transform, then average over each node's neighbourhood (self included)."""
        hidden = self.members.dropout(self.linear(x), self.dropout, self.training)
        return self.act(propagate(adj, hidden))
