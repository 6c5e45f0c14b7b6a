"""Poincaré-ball layers of HNN and HGCN, on geoopt's stereographic-model maths (curvature k = -c)."""

from __future__ import annotations

import math

import torch
from geoopt.manifolds.stereographic import math as pmath
from torch import nn
from torch.nn import functional as F

from graphrepro.models.euclidean import activation


def to_ball(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Map tangent vectors at the origin onto the ball of curvature -c, then keep them inside."""
    return pmath.project(pmath.expmap0(x, k=-c), k=-c)


def to_tangent(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Map points of the ball back to the tangent space at the origin."""
    return pmath.logmap0(x, k=-c)


def sqdist(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Squared geodesic distance on the ball of curvature -c."""
    return pmath.dist(x, y, k=-c) ** 2


def curvature(c: float | None) -> nn.Parameter:
    """A fixed curvature, or a trainable one starting at 1 when ``c`` is None (HGCN's ``--c None``)."""
    value = 1.0 if c is None else float(c)
    return nn.Parameter(torch.tensor([value]), requires_grad=c is None)


class HypLinear(nn.Module):
    """Möbius matrix-vector product with DropConnect on the weight, then Möbius addition of a ball bias."""

    def __init__(self, in_dim: int, out_dim: int, c: torch.Tensor, dropout: float, bias: bool) -> None:
        super().__init__()
        self.c = c
        self.dropout = dropout
        self.weight = nn.Parameter(torch.empty(out_dim, in_dim))
        self.bias = nn.Parameter(torch.zeros(out_dim)) if bias else None
        nn.init.xavier_uniform_(self.weight, gain=math.sqrt(2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the hyperbolic linear map to points of the ball."""
        k = -self.c
        weight = F.dropout(self.weight, self.dropout, self.training)
        out = pmath.project(pmath.mobius_matvec(weight, x, k=k), k=k)
        if self.bias is not None:
            out = pmath.project(pmath.mobius_add(out, to_ball(self.bias.view(1, -1), self.c), k=k), k=k)
        return out


class HypLayer(nn.Module):
    """One HNN layer (``aggregate=False``) or HGCN layer: HypLinear, tangent-space aggregation, HypAct."""

    def __init__(
        self, in_dim: int, out_dim: int, c_in: torch.Tensor, c_out: torch.Tensor,
        dropout: float, act: str, bias: bool, aggregate: bool,
    ) -> None:
        super().__init__()
        self.linear = HypLinear(in_dim, out_dim, c_in, dropout, bias)
        self.c_in, self.c_out = c_in, c_out
        self.act = activation(act)
        self.aggregate = aggregate

    def forward(self, x: torch.Tensor, adj: torch.Tensor | None = None) -> torch.Tensor:
        """Transform points on the ball of curvature -c_in into points on the ball of -c_out."""
        h = self.linear(x)
        if self.aggregate:
            h = to_ball(torch.sparse.mm(adj, to_tangent(h, self.c_in)), self.c_in)
        return to_ball(self.act(to_tangent(h, self.c_in)), self.c_out)
