"""Encoders and task models with HGCN's layer counting and decoders (Fermi-Dirac for links, linear for
nodes), for a batch of independently seeded members: embeddings are [members, nodes, dim]."""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.data import Data

from graphrepro.models import poincare
from graphrepro.models.euclidean import Dense, GATConv, GraphConv, SAGEConv, SGConv
from graphrepro.models.members import Members

EUCLIDEAN = {"MLP": Dense, "GCN": GraphConv, "GAT": GATConv, "SAGE": SAGEConv, "SGC": SGConv}
HYPERBOLIC = {"HNN": False, "HGCN": True}  # whether the layer aggregates over neighbours
MODELS = (*EUCLIDEAN, *HYPERBOLIC)


def layer_dims(in_dim: int, dim: int, num_layers: int, task: str) -> list[int]:
    """HGCN's ``get_dim_act``: num_layers - 1 encoder layers, plus one more (activated) for link prediction."""
    dims = [in_dim] + [dim] * (num_layers - 1)
    return dims + [dim] if task == "lp" else dims


class Encoder(nn.Module):
    """A stack of layers; hyperbolic encoders first map the features onto the ball."""

    def __init__(self, layers: list[nn.Module], c_in: torch.Tensor | None, c_out: torch.Tensor | None) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.c_in, self.c = c_in, c_out  # None for Euclidean encoders

    @property
    def hyperbolic(self) -> bool:
        """True for encoders whose output lies on a Poincaré ball."""
        return self.c is not None

    def forward(self, x: torch.Tensor, graph: Data) -> torch.Tensor:
        """Node embeddings [members, nodes, dim] (points on the ball for hyperbolic encoders)."""
        if self.hyperbolic:
            x = poincare.to_ball(x, self.c_in)
        for layer in self.layers:
            x = layer(x, graph)
        return x


def build_encoder(
    members: Members, model: str, in_dim: int, dim: int, num_layers: int, task: str,
    act: str, dropout: float, bias: bool, c: float | None = 1.0,
) -> Encoder:
    """The encoder of ``model`` (MLP, GCN, HNN or HGCN) with HGCN's dimensions and curvatures."""
    dims = layer_dims(in_dim, dim, num_layers, task)
    pairs = list(zip(dims[:-1], dims[1:]))
    if model == "SGC":  # one propagate-then-linear layer, whatever the depth; no activation
        return Encoder([SGConv(members, in_dim, dim, dropout, "none", bias)], None, None)
    if model in EUCLIDEAN:
        return Encoder([EUCLIDEAN[model](members, i, o, dropout, act, bias) for i, o in pairs], None, None)
    if model not in HYPERBOLIC:
        raise ValueError(f"unknown model {model!r}; choose from {MODELS}")
    model_c = poincare.curvature(members, c)
    if HYPERBOLIC[model]:  # HGCN: one curvature per layer, the model's own last
        curvatures = [poincare.curvature(members, c) for _ in pairs] + [model_c]
    else:  # HNN: one curvature throughout
        curvatures = [model_c] * (len(pairs) + 1)
    layers = [
        poincare.HypLayer(members, i, o, curvatures[n], curvatures[n + 1], dropout, act, bias, HYPERBOLIC[model])
        for n, (i, o) in enumerate(pairs)
    ]
    return Encoder(layers, curvatures[0], model_c)


def fermi_dirac(sqdist: torch.Tensor, r: float = 2.0, t: float = 1.0, clamp: float | None = None) -> torch.Tensor:
    """Edge probability 1 / (exp((d - r) / t) + 1); ``clamp`` caps the exponent (the debugged decoder uses 20)."""
    z = (sqdist - r) / t
    if clamp is not None:
        z = z.clamp_max(clamp)
    return 1.0 / (torch.exp(z) + 1.0)


def ball_projection(h: torch.Tensor) -> torch.Tensor:
    """HGCN's ``Euclidean.normalize``, out of place: rows with norm above 1 are scaled back to norm 1."""
    return torch.renorm(h.reshape(-1, h.shape[-1]), p=2, dim=0, maxnorm=1.0).reshape(h.shape)


class LinkPredictor(nn.Module):
    """Encoder + Fermi-Dirac decoder; Euclidean embeddings optionally projected onto the unit ball (the bug)."""

    def __init__(self, encoder: Encoder, ball_projection: bool, fd_clamp: float | None, r: float = 2.0, t: float = 1.0) -> None:
        super().__init__()
        self.encoder = encoder
        self.ball_projection, self.fd_clamp, self.r, self.t = ball_projection, fd_clamp, r, t

    def embed(self, x: torch.Tensor, graph: Data) -> torch.Tensor:
        """Node embeddings [members, nodes, dim] as the decoder sees them."""
        h = self.encoder(x, graph)
        if not self.encoder.hyperbolic and self.ball_projection:
            h = ball_projection(h)
        return h

    def score(self, h: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """Edge probabilities [members, pairs]; ``pairs`` is [P, 2] (shared) or [members, P, 2]."""
        if pairs.dim() == 2:
            pairs = pairs.expand(h.shape[0], *pairs.shape)
        # gather member by member: the backward scatter-add then sums in the same order as a run alone
        a = torch.stack([h[s, p[:, 0]] for s, p in enumerate(pairs)])
        b = torch.stack([h[s, p[:, 1]] for s, p in enumerate(pairs)])
        if self.encoder.hyperbolic:
            d = poincare.sqdist(a, b, self.encoder.c)
        else:
            d = (a - b).pow(2).sum(-1)
        return fermi_dirac(d, self.r, self.t, self.fd_clamp)


class NodeClassifier(nn.Module):
    """Encoder + HGCN's decoder: one more graph layer for GCN and GAT (and SAGE), else a linear layer on
    (tangent-space) embeddings."""

    def __init__(self, members: Members, encoder: Encoder, model: str, dim: int, n_classes: int, dropout: float, bias: bool) -> None:
        super().__init__()
        self.encoder = encoder
        if model == "GAT":  # HGCN's GATDecoder: one attention head
            self.decoder = GATConv(members, dim, n_classes, dropout, "none", bias, heads=1)
        else:
            decoder = {"GCN": GraphConv, "SAGE": SAGEConv}.get(model, Dense)
            self.decoder = decoder(members, dim, n_classes, dropout, "none", bias)

    def forward(self, x: torch.Tensor, graph: Data) -> torch.Tensor:
        """Class logits [members, nodes, classes]."""
        h = self.encoder(x, graph)
        if self.encoder.hyperbolic:
            h = poincare.to_tangent(h, self.encoder.c)
        return self.decoder(h, graph)
