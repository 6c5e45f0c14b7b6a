"""Poincaré-ball layers of HNN and HGCN on geoopt's stereographic maths (curvature k = -c), stacked
over members: points are [members, nodes, dim] and each member has its own curvature [members, 1, 1]."""

from __future__ import annotations

import math

import torch
from geoopt.manifolds.stereographic import math as pmath
from torch import nn
from torch_geometric.data import Data

from graphrepro.models.euclidean import activation, propagate
from graphrepro.models.members import Members

if isinstance(pmath._expmap0, torch.jit.ScriptFunction):
    raise ImportError(
        "geoopt was imported with TorchScript enabled, which makes hyperbolic runs depend on what ran "
        "before them; import graphrepro before torch and geoopt, or set PYTORCH_JIT=0"
    )


def to_ball(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Map tangent vectors at the origin onto the ball of curvature -c, then keep them inside."""
    return pmath.project(pmath.expmap0(x, k=-c), k=-c)


def to_tangent(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Map points of the ball back to the tangent space at the origin."""
    return pmath.logmap0(x, k=-c)


def sqdist(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Squared geodesic distance on the ball of curvature -c."""
    return pmath.dist(x, y, k=-c, keepdim=True).squeeze(-1) ** 2  # keepdim: k is [members, 1, 1]


def mobius_matvec(weight: torch.Tensor, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Möbius matrix-vector product per member (weight [S, out, in], x [S, N, in]), with geoopt's tan_k/artan_k."""
    k = -c
    x_norm = x.norm(dim=-1, keepdim=True).clamp_min(1e-15)
    mx = torch.bmm(x, weight.transpose(1, 2))
    mx_norm = mx.norm(dim=-1, keepdim=True).clamp_min(1e-15)
    out = pmath.tan_k(mx_norm / x_norm * pmath.artan_k(x_norm, k), k) * (mx / mx_norm)
    return torch.where((mx == 0).all(dim=-1, keepdim=True), torch.zeros_like(out), out)


def curvature(members: Members, c: float | None) -> nn.Parameter:
    """A fixed curvature per member, or a trainable one starting at 1 when ``c`` is None (HGCN's ``--c None``)."""
    value = 1.0 if c is None else float(c)
    return nn.Parameter(torch.full((len(members), 1, 1), value), requires_grad=c is None)


class HypLinear(nn.Module):
    """Möbius matrix-vector product with DropConnect on the weight, then Möbius addition of a ball bias."""

    def __init__(self, members: Members, in_dim: int, out_dim: int, c: torch.Tensor, dropout: float, bias: bool) -> None:
        super().__init__()
        self.members, self.c, self.dropout = members, c, dropout
        self.weight = nn.Parameter(members.xavier(out_dim, in_dim, gain=math.sqrt(2)))
        self.bias = nn.Parameter(torch.zeros(len(members), 1, out_dim)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the hyperbolic linear map to points of the ball."""
        k = -self.c
        weight = self.members.dropout(self.weight, self.dropout, self.training)
        out = pmath.project(mobius_matvec(weight, x, self.c), k=k)
        if self.bias is not None:
            out = pmath.project(pmath.mobius_add(out, to_ball(self.bias, self.c), k=k), k=k)
        return out


class HypLayer(nn.Module):
    """One HNN layer (``aggregate=False``) or HGCN layer: HypLinear, tangent-space aggregation, HypAct."""

    def __init__(
        self, members: Members, in_dim: int, out_dim: int, c_in: torch.Tensor, c_out: torch.Tensor,
        dropout: float, act: str, bias: bool, aggregate: bool,
    ) -> None:
        super().__init__()
        self.linear = HypLinear(members, in_dim, out_dim, c_in, dropout, bias)
        self.c_in, self.c_out = c_in, c_out
        self.act = activation(act)
        self.aggregate = aggregate

    def forward(self, x: torch.Tensor, graph: Data | None = None) -> torch.Tensor:
        """Transform points on the ball of curvature -c_in into points on the ball of -c_out."""
        h = self.linear(x)
        if self.aggregate:
            h = to_ball(propagate(graph.adj, to_tangent(h, self.c_in)), self.c_in)
        return to_ball(self.act(to_tangent(h, self.c_in)), self.c_out)
