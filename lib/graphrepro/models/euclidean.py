"""Euclidean layers as HGCN writes them: a linear map, dropout on its output, then propagation and activation."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F

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


class Dense(nn.Module):
    """HGCN's ``Linear``: linear map, dropout on the output, activation."""

    def __init__(self, in_dim: int, out_dim: int, dropout: float, act: str, bias: bool) -> None:
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim, bias=bias)
        self.dropout = dropout
        self.act = activation(act)

    def forward(self, x: torch.Tensor, adj: torch.Tensor | None = None) -> torch.Tensor:
        """Transform node features; ``adj`` is ignored (features only)."""
        return self.act(F.dropout(self.linear(x), self.dropout, self.training))


class GraphConv(Dense):
    """HGCN's ``GraphConvolution``: linear map, dropout, multiplication by the normalised adjacency, activation."""

    def forward(self, x: torch.Tensor, adj: torch.Tensor | None = None) -> torch.Tensor:
        """Transform, then average over each node's neighbourhood (self included)."""
        hidden = F.dropout(self.linear(x), self.dropout, self.training)
        return self.act(torch.sparse.mm(adj, hidden))
