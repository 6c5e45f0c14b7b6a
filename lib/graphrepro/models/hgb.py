"""The HGB benchmark's node classifiers (Lv et al. 2021), after THUDM/HGB's code: per-type input
projections, GCN and GAT on the heterogeneous graph taken as homogeneous, Simple-HGN (edge-type
attention, attention residual, node residual, L2-normalised logits) and HAN on meta-path graphs."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F
from torch_geometric.nn import GATConv, HANConv
from torch_geometric.utils import scatter, softmax

RELU_GAIN = nn.init.calculate_gain("relu")


class TypedInput(nn.Module):
    """One ``Linear(in_t -> hidden)`` per node type (xavier normal, gain 1.414), outputs stacked in global
    node order. A one-hot type is a lookup of the weight's columns; a zero-feature type is its bias."""

    def __init__(self, dims: list[int], one_hot: list[bool], hidden: int):
        super().__init__()
        self.one_hot = one_hot
        self.layers = nn.ModuleList(nn.Linear(d, hidden) for d in dims)
        for layer in self.layers:
            nn.init.xavier_normal_(layer.weight, gain=1.414)

    def forward(self, features: list[torch.Tensor | None]) -> torch.Tensor:
        """``features[t]``: the type's input rows, or None for one-hot (identity) inputs."""
        parts = []
        for layer, x, hot in zip(self.layers, features, self.one_hot):
            parts.append(layer.weight.t() + layer.bias if hot else layer(x))
        return torch.cat(parts)


class HGBGCN(nn.Module):
    """HGB's GCN: a weight-free propagation, then ``layers - 1`` GraphConvs and an output GraphConv on
    ``D^-1/2 (A + I) D^-1/2``; ELU, and dropout before every layer."""

    def __init__(self, inputs: TypedInput, hidden: int, classes: int, layers: int, dropout: float):
        super().__init__()
        self.inputs, self.dropout = inputs, dropout
        self.weights = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers - 1))
        self.weights.append(nn.Linear(hidden, classes))
        for lin in self.weights:  # DGL GraphConv: xavier uniform weight, zero bias
            nn.init.xavier_uniform_(lin.weight)
            nn.init.zeros_(lin.bias)

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        h = self.inputs(features)
        h = F.elu(torch.sparse.mm(adj, F.dropout(h, self.dropout, self.training)))
        for i, lin in enumerate(self.weights):
            h = torch.sparse.mm(adj, lin(F.dropout(h, self.dropout, self.training)))  # A (h W) + b: W before A, as DGL
            if i < len(self.weights) - 1:
                h = F.elu(h)
        return h


def _dgl_init(conv: GATConv) -> None:
    """DGL's GATConv initialisation: xavier normal with the ReLU gain on weights and attention vectors."""
    nn.init.xavier_normal_(conv.lin.weight, gain=RELU_GAIN)
    nn.init.xavier_normal_(conv.att_src, gain=RELU_GAIN)
    nn.init.xavier_normal_(conv.att_dst, gain=RELU_GAIN)
    nn.init.zeros_(conv.bias)


class HGBGAT(nn.Module):
    """HGB's GAT: ``layers`` hidden GATConvs (``heads`` heads of ``hidden``, concatenated, ELU) and an
    output GATConv with one head; feature and attention dropout, no residual, no normalisation."""

    def __init__(self, inputs: TypedInput, hidden: int, classes: int, layers: int, heads: int, dropout: float, slope: float):
        super().__init__()
        self.inputs, self.dropout = inputs, dropout
        dims = [hidden] + [hidden * heads] * layers
        self.convs = nn.ModuleList(
            GATConv(dims[i], hidden, heads, negative_slope=slope, dropout=dropout, add_self_loops=False) for i in range(layers)
        )
        self.convs.append(GATConv(dims[-1], classes, 1, concat=False, negative_slope=slope, dropout=dropout, add_self_loops=False))
        for conv in self.convs:
            _dgl_init(conv)

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        h = self.inputs(features)
        for i, conv in enumerate(self.convs):
            h = conv(F.dropout(h, self.dropout, self.training), graph["edge_index"])
            if i < len(self.convs) - 1:
                h = F.elu(h)
        return h


class SimpleHGNConv(nn.Module):
    """Simple-HGN's layer: GAT attention with an edge-type term, an attention residual
    ``(1 - beta) a + beta a_prev`` (``a_prev`` detached), an optional node residual, no bias."""

    def __init__(self, in_dim: int, out_dim: int, heads: int, edge_types: int, edge_dim: int, dropout: float,
                 slope: float, residual: bool, beta: float, activation: bool, type_embedding: bool = True):
        super().__init__()
        self.heads, self.out_dim, self.dropout, self.slope, self.beta = heads, out_dim, dropout, slope, beta
        self.activation, self.type_embedding = activation, type_embedding
        self.fc = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.edge_emb = nn.Embedding(edge_types, edge_dim)
        self.fc_e = nn.Linear(edge_dim, heads * edge_dim, bias=False)
        self.attn_l = nn.Parameter(torch.empty(1, heads, out_dim))
        self.attn_r = nn.Parameter(torch.empty(1, heads, out_dim))
        self.attn_e = nn.Parameter(torch.empty(1, heads, edge_dim))
        self.res_fc = (nn.Linear(in_dim, heads * out_dim, bias=False) if in_dim != heads * out_dim else nn.Identity()) if residual else None
        for w in (self.fc.weight, self.fc_e.weight, self.attn_l, self.attn_r, self.attn_e):
            nn.init.xavier_normal_(w, gain=RELU_GAIN)
        if isinstance(self.res_fc, nn.Linear):
            nn.init.xavier_normal_(self.res_fc.weight, gain=RELU_GAIN)

    def forward(self, h: torch.Tensor, edge_index: torch.Tensor, edge_type: torch.Tensor,
                prev_attention: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        n = h.shape[0]
        src, dst = edge_index
        h = F.dropout(h, self.dropout, self.training)
        wh = self.fc(h).view(n, self.heads, self.out_dim)
        logits = (wh * self.attn_l).sum(-1)[src] + (wh * self.attn_r).sum(-1)[dst]
        if self.type_embedding:
            e = self.fc_e(self.edge_emb.weight).view(-1, self.heads, self.edge_emb.embedding_dim)
            logits = logits + (e * self.attn_e).sum(-1)[edge_type]  # per type, then gathered per edge
        attention = softmax(F.leaky_relu(logits, self.slope), dst, num_nodes=n)
        attention = F.dropout(attention, self.dropout, self.training)
        if prev_attention is not None:
            attention = attention * (1 - self.beta) + prev_attention * self.beta
        out = scatter(attention.unsqueeze(-1) * wh[src], dst, dim=0, dim_size=n, reduce="sum")
        if self.res_fc is not None:
            out = out + self.res_fc(h).view(n, self.heads, self.out_dim)
        if self.activation:
            out = F.elu(out)
        return out, attention.detach()


class SimpleHGN(nn.Module):
    """Simple-HGN: typed input projections, ``layers`` hidden layers (node residual from the second on,
    attention residual), an output layer with one head, mean over heads, L2-normalised logits. The
    ablation switches turn off the type embeddings, the residuals or the normalisation."""

    def __init__(self, inputs: TypedInput, hidden: int, classes: int, layers: int, heads: int, edge_types: int,
                 dropout: float, slope: float, beta: float = 0.05, edge_dim: int = 64, type_embedding: bool = True,
                 residual: bool = True, l2_norm: bool = True):
        super().__init__()
        self.inputs, self.l2_norm = inputs, l2_norm
        self.beta = beta if residual else 0.0
        args = {"edge_types": edge_types, "edge_dim": edge_dim, "dropout": dropout, "slope": slope, "beta": self.beta,
                "type_embedding": type_embedding}
        self.convs = nn.ModuleList([SimpleHGNConv(hidden, hidden, heads, residual=False, activation=True, **args)])
        self.convs.extend(SimpleHGNConv(hidden * heads, hidden, heads, residual=residual, activation=True, **args)
                          for _ in range(layers - 1))
        self.convs.append(SimpleHGNConv(hidden * heads, classes, 1, residual=residual, activation=False, **args))

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        h = self.inputs(features)
        attention = None
        for conv in self.convs[:-1]:
            out, attention = conv(h, graph["edge_index"], graph["edge_type"], attention if self.beta else None)
            h = out.flatten(1)
        out, _ = self.convs[-1](h, graph["edge_index"], graph["edge_type"], None)
        logits = out.mean(1)
        return F.normalize(logits, p=2, dim=-1, eps=1e-12) if self.l2_norm else logits


class HAN(nn.Module):
    """HAN on meta-path graphs through PyG's ``HANConv`` (node-level attention per meta-path, semantic
    attention across them), then a linear classifier; target-type features only."""

    def __init__(self, in_dim: int, hidden: int, heads: int, classes: int, metapaths: list[str], dropout: float,
                 target: str):
        super().__init__()
        self.target = target
        metadata = ([target], [(target, name, target) for name in metapaths])
        self.conv = HANConv({target: in_dim}, hidden * heads, metadata, heads=heads, dropout=dropout)
        self.out = nn.Linear(hidden * heads, classes)

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        h = self.conv({self.target: graph["target_x"]}, graph["metapath_edges"])[self.target]
        return self.out(h)
