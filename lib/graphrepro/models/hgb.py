"""The HGB benchmark's node classifiers (Lv et al. 2021), after THUDM/HGB's code: per-type input
projections, GCN and GAT on the heterogeneous graph taken as homogeneous, Simple-HGN (edge-type
attention, attention residual, node residual, L2-normalised logits) and HAN on meta-path graphs."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F
from torch_geometric.utils import softmax

from graphrepro.sparse import attention_sum, sparse_mm

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
        h = F.elu(sparse_mm(adj, F.dropout(h, self.dropout, self.training)))
        for i, lin in enumerate(self.weights):
            h = sparse_mm(adj, lin(F.dropout(h, self.dropout, self.training)))  # A (h W) + b: W before A, as DGL
            if i < len(self.weights) - 1:
                h = F.elu(h)
        return h


class SimpleHGNConv(nn.Module):
    """Simple-HGN's layer: GAT attention with an edge-type term, an attention residual
    ``(1 - beta) a + beta a_prev`` (``a_prev`` detached), an optional node residual, no bias. With the
    additions off and a bias, it is DGL's (and PyG's) GATConv, which HGB's GAT uses."""

    def __init__(self, in_dim: int, out_dim: int, heads: int, edge_types: int, edge_dim: int, dropout: float,
                 slope: float, residual: bool, beta: float, activation: bool, type_embedding: bool = True,
                 bias: bool = False):
        super().__init__()
        self.heads, self.out_dim, self.dropout, self.slope, self.beta = heads, out_dim, dropout, slope, beta
        self.activation = activation
        self.fc = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.attn_l = nn.Parameter(torch.empty(1, heads, out_dim))
        self.attn_r = nn.Parameter(torch.empty(1, heads, out_dim))
        weights = [self.fc.weight, self.attn_l, self.attn_r]
        self.edge_emb = nn.Embedding(edge_types, edge_dim) if type_embedding else None
        if self.edge_emb is not None:
            self.fc_e = nn.Linear(edge_dim, heads * edge_dim, bias=False)
            self.attn_e = nn.Parameter(torch.empty(1, heads, edge_dim))
            weights += [self.fc_e.weight, self.attn_e]
        self.res_fc = (nn.Linear(in_dim, heads * out_dim, bias=False) if in_dim != heads * out_dim else nn.Identity()) if residual else None
        if isinstance(self.res_fc, nn.Linear):
            weights.append(self.res_fc.weight)
        for w in weights:  # DGL: xavier normal with the ReLU gain; a zero bias
            nn.init.xavier_normal_(w, gain=RELU_GAIN)
        self.bias = nn.Parameter(torch.zeros(heads, out_dim)) if bias else None

    def forward(self, h: torch.Tensor, graph: dict, prev_attention: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """``graph``: ``edge_index`` sorted by destination, its ``csr`` structure, and ``edge_type`` if typed."""
        n = h.shape[0]
        src, dst = graph["edge_index"]
        h = F.dropout(h, self.dropout, self.training)
        wh = self.fc(h).view(n, self.heads, self.out_dim)
        logits = (wh * self.attn_l).sum(-1)[src] + (wh * self.attn_r).sum(-1)[dst]
        if self.edge_emb is not None:
            e = self.fc_e(self.edge_emb.weight).view(-1, self.heads, self.edge_emb.embedding_dim)
            logits = logits + (e * self.attn_e).sum(-1)[graph["edge_type"]]  # per type, then gathered per edge
        attention = softmax(F.leaky_relu(logits, self.slope), dst, num_nodes=n)
        attention = F.dropout(attention, self.dropout, self.training)
        if prev_attention is not None:
            attention = attention * (1 - self.beta) + prev_attention * self.beta
        out = attention_sum(attention, wh, graph["csr"])
        if self.res_fc is not None:
            out = out + self.res_fc(h).view(n, self.heads, self.out_dim)
        if self.bias is not None:
            out = out + self.bias
        if self.activation:
            out = F.elu(out)
        return out, attention.detach()


def gat_layer(in_dim: int, out_dim: int, heads: int, dropout: float, slope: float, activation: bool) -> SimpleHGNConv:
    """A plain GAT layer (DGL's GATConv, as HGB's GAT and HAN use it): Simple-HGN's layer without its additions."""
    return SimpleHGNConv(in_dim, out_dim, heads, edge_types=0, edge_dim=0, dropout=dropout, slope=slope, residual=False,
                         beta=0.0, activation=activation, type_embedding=False, bias=True)


class HGBGAT(nn.Module):
    """HGB's GAT: ``layers`` hidden GAT layers (``heads`` heads of ``hidden``, concatenated, ELU) and an
    output layer with one head; feature and attention dropout, a bias, no residual, no normalisation."""

    def __init__(self, inputs: TypedInput, hidden: int, classes: int, layers: int, heads: int, dropout: float, slope: float):
        super().__init__()
        self.inputs = inputs
        dims = [hidden] + [hidden * heads] * layers
        self.convs = nn.ModuleList(gat_layer(dims[i], hidden, heads, dropout, slope, True) for i in range(layers))
        self.convs.append(gat_layer(dims[-1], classes, 1, dropout, slope, False))

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        h = self.inputs(features)
        for conv in self.convs:
            h = conv(h, graph, None)[0].flatten(1)
        return h


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
            out, attention = conv(h, graph, attention if self.beta else None)
            h = out.flatten(1)
        out, _ = self.convs[-1](h, graph, None)
        logits = out.mean(1)
        return F.normalize(logits, p=2, dim=-1, eps=1e-12) if self.l2_norm else logits


class HAN(nn.Module):
    """HAN as HGB's DGL code has it: one GAT layer per meta-path graph (``heads`` heads of ``hidden``, ELU,
    slope 0.2, a bias), semantic attention over the meta-paths (``Linear(heads x hidden, 128)``, tanh,
    ``Linear(128, 1)`` averaged over nodes, softmax), then a linear classifier; target features only."""

    def __init__(self, in_dim: int, hidden: int, heads: int, classes: int, metapaths: list[str], dropout: float,
                 semantic: int = 128, slope: float = 0.2):
        super().__init__()
        self.metapaths = list(metapaths)
        self.convs = nn.ModuleDict({name: gat_layer(in_dim, hidden, heads, dropout, slope, True) for name in self.metapaths})
        self.semantic = nn.Sequential(nn.Linear(hidden * heads, semantic), nn.Tanh(), nn.Linear(semantic, 1, bias=False))
        self.out = nn.Linear(hidden * heads, classes)

    def forward(self, features: list[torch.Tensor | None], adj: torch.Tensor, graph: dict) -> torch.Tensor:
        """``graph["metapaths"][name]``: each meta-path graph as ``SimpleHGNConv`` takes it."""
        x = graph["target_x"]
        z = torch.stack([self.convs[name](x, graph["metapaths"][name], None)[0].flatten(1) for name in self.metapaths], dim=1)
        weights = torch.softmax(self.semantic(z).mean(0), dim=0)  # (meta-paths, 1)
        return self.out((weights.unsqueeze(0) * z).sum(1))
