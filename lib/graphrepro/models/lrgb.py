"""Graph-level models for LRGB's Peptides-func, after GraphGPS/GraphGym as LRGB and Tönshoff et al. ran
them: OGB's atom and bond encoders (with RWSE carved out of the hidden size), a stack of GCN, GINE or
GatedGCN layers, mean pooling and an MLP head whose ``head_layers`` counts every Linear."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from ogb.graphproppred.mol_encoder import AtomEncoder, BondEncoder
from torch import nn
from torch.nn import functional as F
from torch_geometric.nn import GCNConv, GINEConv, global_mean_pool
from torch_geometric.utils import scatter

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}
LAYERS = ("GCN", "GINE", "GatedGCN")


@dataclass(frozen=True)
class Architecture:
    """What a run builds: the layer type and stack, its width, the head, and the encoders."""

    layer: str
    layers: int
    hidden: int
    head_layers: int
    activation: str
    dropout: float
    residual: bool
    batchnorm: bool  # GraphGym's GCN stack (LRGB's original GCN); GatedGCN always normalises
    l2norm: bool = False  # GraphGym's stack L2-normalises node states after message passing (its default)
    head_norm: bool = False  # hidden head layers as GraphGym builds them (Linear without bias, BatchNorm, act)
    rwse_steps: int = 0  # 0: no random-walk structural encoding
    rwse_dim: int = 28
    outputs: int = 10


class NodeEncoder(nn.Module):
    """Atom embedding, concatenated with a linear map of the batch-normalised RWSE when there is one."""

    def __init__(self, hidden: int, rwse_steps: int, rwse_dim: int):
        super().__init__()
        self.rwse = rwse_steps > 0
        self.atom = AtomEncoder(hidden - rwse_dim if self.rwse else hidden)
        if self.rwse:
            self.raw_norm = nn.BatchNorm1d(rwse_steps)
            self.project = nn.Linear(rwse_steps, rwse_dim)

    def forward(self, x: torch.Tensor, rwse: torch.Tensor | None) -> torch.Tensor:
        """Node states of the first layer."""
        h = self.atom(x)
        return torch.cat([h, self.project(self.raw_norm(rwse))], dim=-1) if self.rwse else h


class GCNLayer(nn.Module):
    """PyG's ``GCNConv`` (self-loops, symmetric normalisation), then [BatchNorm], activation, dropout,
    [residual]. GraphGym's stack drops the bias when it normalises."""

    def __init__(self, dim: int, activation: str, dropout: float, residual: bool, batchnorm: bool):
        super().__init__()
        self.conv = GCNConv(dim, dim, bias=not batchnorm)
        self.norm = nn.BatchNorm1d(dim) if batchnorm else nn.Identity()
        self.act, self.dropout, self.residual = ACTIVATIONS[activation](), dropout, residual

    def forward(self, x, edge_index, edge_attr):
        h = F.dropout(self.act(self.norm(self.conv(x, edge_index))), self.dropout, self.training)
        return (x + h if self.residual else h), edge_attr


class GINELayer(nn.Module):
    """PyG's ``GINEConv`` (eps 0, message ReLU(x_j + e_ij)) with ``Linear, act, dropout, Linear, dropout``
    as its network, then activation (LRGB's original layer only), dropout and [residual]."""

    def __init__(self, dim: int, activation: str, dropout: float, residual: bool, tuned: bool):
        super().__init__()
        act = ACTIVATIONS[activation]
        net = (nn.Sequential(nn.Linear(dim, dim), act(), nn.Dropout(dropout), nn.Linear(dim, dim), nn.Dropout(dropout))
               if tuned else nn.Sequential(nn.Linear(dim, dim), act(), nn.Linear(dim, dim)))
        self.conv = GINEConv(net, train_eps=False)
        self.post = nn.Identity() if tuned else nn.Sequential(act(), nn.Dropout(dropout))
        self.residual = residual

    def forward(self, x, edge_index, edge_attr):
        h = self.post(self.conv(x, edge_index, edge_attr))
        return (x + h if self.residual else h), edge_attr


class GatedGCNLayer(nn.Module):
    """GraphGPS's GatedGCN (Bresson & Laurent): ê_ij = D x_i + E x_j + C e_ij, gates σ(ê_ij) normalised
    by their sum over j, x_i' = A x_i + Σ_j σ_ij ⊙ B x_j / (Σ_j σ_ij + 1e-6); BatchNorm, ReLU and dropout
    on nodes and edges; residual on nodes when asked, always on edges."""

    def __init__(self, dim: int, dropout: float, residual: bool):
        super().__init__()
        self.A, self.B, self.C, self.D, self.E = (nn.Linear(dim, dim) for _ in range(5))
        self.norm_x, self.norm_e = nn.BatchNorm1d(dim), nn.BatchNorm1d(dim)
        self.dropout, self.residual = dropout, residual

    def forward(self, x, edge_index, edge_attr):
        src, dst = edge_index
        e_hat = self.D(x)[dst] + self.E(x)[src] + self.C(edge_attr)
        gate = torch.sigmoid(e_hat)
        num = scatter(gate * self.B(x)[src], dst, 0, dim_size=x.shape[0], reduce="sum")
        den = scatter(gate, dst, 0, dim_size=x.shape[0], reduce="sum")
        h = self.A(x) + num / (den + 1e-6)
        h = F.dropout(F.relu(self.norm_x(h)), self.dropout, self.training)
        e = F.dropout(F.relu(self.norm_e(e_hat)), self.dropout, self.training)
        return (x + h if self.residual else h), edge_attr + e


class GraphHead(nn.Module):
    """The head after mean pooling: ``head_layers - 1`` hidden blocks, then dropout and Linear(d, outputs);
    one layer is a linear head. Hidden blocks are GraphGPS's ``mlp_graph`` (dropout, Linear(d, d), act) or,
    with ``norm``, GraphGym's ``GNNGraphHead`` that LRGB's configs use (Linear(d, d) without bias, BatchNorm, act)."""

    def __init__(self, dim: int, outputs: int, layers: int, activation: str, dropout: float, norm: bool = False):
        super().__init__()
        blocks: list[nn.Module] = []
        for _ in range(layers - 1):
            blocks += [nn.Linear(dim, dim, bias=False), nn.BatchNorm1d(dim)] if norm else [nn.Dropout(dropout), nn.Linear(dim, dim)]
            blocks.append(ACTIVATIONS[activation]())
        self.net = nn.Sequential(*blocks, nn.Dropout(dropout), nn.Linear(dim, outputs))

    def forward(self, h: torch.Tensor, batch: torch.Tensor, graphs: int) -> torch.Tensor:
        return self.net(global_mean_pool(h, batch, graphs))


class PeptideModel(nn.Module):
    """Encoders, message-passing stack and head: logits [graphs, outputs] for a PyG batch."""

    def __init__(self, arch: Architecture, tuned: bool):
        super().__init__()
        if arch.layer not in LAYERS:
            raise ValueError(f"unknown layer {arch.layer!r}; choose from {LAYERS}")
        self.nodes = NodeEncoder(arch.hidden, arch.rwse_steps, arch.rwse_dim)
        # LRGB's original GCN runs without an edge encoder; the other stacks (and every tuned one) embed bonds
        self.edges = BondEncoder(arch.hidden) if arch.layer != "GCN" or tuned else None

        def layer() -> nn.Module:
            if arch.layer == "GCN":
                return GCNLayer(arch.hidden, arch.activation, arch.dropout, arch.residual, arch.batchnorm)
            if arch.layer == "GINE":
                return GINELayer(arch.hidden, arch.activation, arch.dropout, arch.residual, tuned)
            return GatedGCNLayer(arch.hidden, arch.dropout, arch.residual)

        self.layers = nn.ModuleList(layer() for _ in range(arch.layers))
        self.head = GraphHead(arch.hidden, arch.outputs, arch.head_layers, arch.activation, arch.dropout, arch.head_norm)
        self.l2norm = arch.l2norm

    def forward(self, batch) -> torch.Tensor:
        h = self.nodes(batch.x, getattr(batch, "rwse", None))
        e = self.edges(batch.edge_attr) if self.edges is not None else None
        for layer in self.layers:
            h, e = layer(h, batch.edge_index, e)
        if self.l2norm:
            h = F.normalize(h, p=2, dim=-1)
        return self.head(h, batch.batch, batch.num_graphs)


def parameter_count(model: nn.Module) -> int:
    """Trainable parameters (BatchNorm's running statistics are buffers, not counted)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
