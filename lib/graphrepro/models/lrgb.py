"""Graph-level models for LRGB's Peptides-func, after GraphGPS/GraphGym as LRGB and Tönshoff et al. ran
them: OGB's atom and bond encoders (with RWSE carved out of the hidden size), a stack of GCN, GINE or
GatedGCN layers, mean pooling and an MLP head whose ``head_layers`` counts every Linear."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from ogb.graphproppred.mol_encoder import AtomEncoder, BondEncoder
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint
from torch_geometric.nn import GCNConv, GINEConv, global_mean_pool
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import scatter, to_dense_batch

from graphrepro.models.onednn import use_onednn
from graphrepro.sparse import block_sum, csr_structure, sort_by_destination

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}
LAYERS = ("GCN", "GINE", "GatedGCN", "GPS")


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
    lappe_dim: int = 0  # 0: no Laplacian encoding (GPS uses 16 dimensions)
    heads: int = 4  # GPS's attention heads
    attention_dropout: float = 0.5
    outputs: int = 10
    fast: bool = False  # the fast step (``FAST``)
    matmul: str = "aten"  # fp32 linear products on a CPU: torch's own (MKL) or ``onednn`` (``models.onednn``)


FAST = ("dropout masks from random bits (15 per element) in every layer, attention included; GatedGCN's "
        "gathers by index_select and its sums by index_add_")


def draw(fast: bool, reference: str = "bernoulli") -> str:
    """The dropout draw of a layer: ``bits`` in the fast step, else the one its records were made with."""
    return "bits" if fast else reference


class NodeEncoder(nn.Module):
    """Atom embedding, concatenated with a linear map of the batch-normalised RWSE or with the Laplacian
    encoding when there is one (their dimensions carved out of the hidden size)."""

    def __init__(self, hidden: int, rwse_steps: int, rwse_dim: int, lappe_dim: int = 0):
        super().__init__()
        self.rwse, self.lappe = rwse_steps > 0, lappe_dim > 0
        self.atom = AtomEncoder(hidden - (rwse_dim if self.rwse else 0) - lappe_dim)
        if self.rwse:
            self.raw_norm = nn.BatchNorm1d(rwse_steps)
            self.project = nn.Linear(rwse_steps, rwse_dim)
        if self.lappe:
            self.laplacian = LapPEEncoder(lappe_dim)

    def forward(self, batch) -> torch.Tensor:
        """Node states of the first layer."""
        parts = [self.atom(batch.x)]
        if self.rwse:
            parts.append(self.project(self.raw_norm(batch.rwse)))
        if self.lappe:
            parts.append(self.laplacian(batch.eigvecs, batch.eigvals))
        return torch.cat(parts, dim=-1)


def gcn_adjacency(edge_index: torch.Tensor, num_nodes: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """A batch's GCN propagation matrix, built once for every layer: PyG's ``gcn_norm`` weights (self-loops
    added, symmetric normalisation) in CSR order, and the CSR structure."""
    edges, weights = gcn_norm(edge_index, None, num_nodes, add_self_loops=True)
    order = sort_by_destination(edges, num_nodes)
    return weights[order], csr_structure(edges[:, order], num_nodes)


class GCNLayer(nn.Module):
    """PyG's ``GCNConv`` (self-loops, symmetric normalisation) with its sum taken as one sparse product over
    the batch's precomputed adjacency (``gcn_adjacency``; about 2x faster than PyG's per-edge messages),
    then [BatchNorm], activation, dropout, [residual]. GraphGym's stack drops the bias when it normalises."""

    def __init__(self, dim: int, activation: str, dropout: float, residual: bool, batchnorm: bool, fast: bool = False):
        super().__init__()
        self.conv = GCNConv(dim, dim, bias=not batchnorm)
        self.norm = nn.BatchNorm1d(dim) if batchnorm else nn.Identity()
        self.act, self.dropout, self.residual = ACTIVATIONS[activation](), Dropout(dropout, draw(fast)), residual

    def forward(self, x, adjacency, edge_attr):
        weights, csr = adjacency
        h = block_sum(weights.unsqueeze(0), self.conv.lin(x).unsqueeze(0), csr)[0]
        if self.conv.bias is not None:
            h = h + self.conv.bias
        h = self.dropout(self.act(self.norm(h)))
        return (x + h if self.residual else h), edge_attr


class GINELayer(nn.Module):
    """PyG's ``GINEConv`` (eps 0, message ReLU(x_j + e_ij)) with ``Linear, act, dropout, Linear, dropout``
    as its network, then activation (LRGB's original layer only), dropout and [residual]."""

    def __init__(self, dim: int, activation: str, dropout: float, residual: bool, tuned: bool, fast: bool = False):
        super().__init__()
        act, drop = ACTIVATIONS[activation], draw(fast)
        net = (nn.Sequential(nn.Linear(dim, dim), act(), Dropout(dropout, drop), nn.Linear(dim, dim), Dropout(dropout, drop))
               if tuned else nn.Sequential(nn.Linear(dim, dim), act(), nn.Linear(dim, dim)))
        self.conv = GINEConv(net, train_eps=False)
        self.post = nn.Identity() if tuned else nn.Sequential(act(), Dropout(dropout, drop))
        self.residual = residual

    def forward(self, x, edge_index, edge_attr):
        h = self.post(self.conv(x, edge_index, edge_attr))
        return (x + h if self.residual else h), edge_attr


class GatedGCNLayer(nn.Module):
    """GraphGPS's GatedGCN (Bresson & Laurent): ê_ij = D x_i + E x_j + C e_ij, gates σ(ê_ij) normalised
    by their sum over j, x_i' = A x_i + Σ_j σ_ij ⊙ B x_j / (Σ_j σ_ij + 1e-6); BatchNorm, ReLU and dropout
    on nodes and edges; residual on nodes when asked, always on edges. The fast step gathers and sums by
    ``index_select`` and ``index_add_`` (the backward of ``x[src]``, an ``index_put_``, is slow in bf16)."""

    def __init__(self, dim: int, dropout: float, residual: bool, activation: str = "relu", fast: bool = False):
        super().__init__()
        self.A, self.B, self.C, self.D, self.E = (nn.Linear(dim, dim) for _ in range(5))
        self.norm_x, self.norm_e = nn.BatchNorm1d(dim), nn.BatchNorm1d(dim)
        self.act_x, self.act_e = ACTIVATIONS[activation](), ACTIVATIONS[activation]()
        self.dropout, self.residual, self.fast = Dropout(dropout, draw(fast)), residual, fast

    def forward(self, x, edge_index, edge_attr):
        src, dst = edge_index
        gather, total = (_index_select, _index_add) if self.fast else (_index, _scatter_sum)
        e_hat = gather(self.D(x), dst) + gather(self.E(x), src) + self.C(edge_attr)
        gate = torch.sigmoid(e_hat)
        num = total(gate * gather(self.B(x), src), dst, x.shape[0])
        den = total(gate, dst, x.shape[0])
        h = self.A(x) + num / (den + 1e-6)
        h = self.dropout(self.act_x(self.norm_x(h)))
        e = self.dropout(self.act_e(self.norm_e(e_hat)))
        return (x + h if self.residual else h), edge_attr + e


def _index(t: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    return t[rows]


def _index_select(t: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    return t.index_select(0, rows)


def _scatter_sum(t: torch.Tensor, rows: torch.Tensor, size: int) -> torch.Tensor:
    return scatter(t, rows, 0, dim_size=size, reduce="sum")


def _index_add(t: torch.Tensor, rows: torch.Tensor, size: int) -> torch.Tensor:
    return t.new_zeros(size, t.shape[1]).index_add_(0, rows, t)


class GraphHead(nn.Module):
    """The head after mean pooling: ``head_layers - 1`` hidden blocks, then dropout and Linear(d, outputs);
    one layer is a linear head. Hidden blocks are GraphGPS's ``mlp_graph`` (dropout, Linear(d, d), act) or,
    with ``norm``, GraphGym's ``GNNGraphHead`` that LRGB's configs use (Linear(d, d) without bias, BatchNorm, act)."""

    def __init__(self, dim: int, outputs: int, layers: int, activation: str, dropout: float, norm: bool = False,
                 fast: bool = False):
        super().__init__()
        blocks: list[nn.Module] = []
        for _ in range(layers - 1):
            blocks += [nn.Linear(dim, dim, bias=False), nn.BatchNorm1d(dim)] if norm else [Dropout(dropout, draw(fast)), nn.Linear(dim, dim)]
            blocks.append(ACTIVATIONS[activation]())
        self.net = nn.Sequential(*blocks, Dropout(dropout, draw(fast)), nn.Linear(dim, outputs))

    def forward(self, h: torch.Tensor, batch: torch.Tensor, graphs: int) -> torch.Tensor:
        return self.net(global_mean_pool(h, batch, graphs))


class PeptideModel(nn.Module):
    """Encoders, message-passing stack and head: logits [graphs, outputs] for a PyG batch."""

    def __init__(self, arch: Architecture, tuned: bool):
        super().__init__()
        if arch.layer not in LAYERS:
            raise ValueError(f"unknown layer {arch.layer!r}; choose from {LAYERS}")
        self.nodes = NodeEncoder(arch.hidden, arch.rwse_steps, arch.rwse_dim, arch.lappe_dim)
        # LRGB's original GCN runs without an edge encoder; the other stacks (and every tuned one) embed bonds
        self.edges = BondEncoder(arch.hidden) if arch.layer != "GCN" or tuned else None

        def layer() -> nn.Module:
            if arch.layer == "GCN":
                return GCNLayer(arch.hidden, arch.activation, arch.dropout, arch.residual, arch.batchnorm, arch.fast)
            if arch.layer == "GINE":
                return GINELayer(arch.hidden, arch.activation, arch.dropout, arch.residual, tuned, arch.fast)
            if arch.layer == "GPS":
                return GPSLayer(arch.hidden, arch.heads, arch.activation, arch.dropout, arch.attention_dropout, fast=arch.fast)
            return GatedGCNLayer(arch.hidden, arch.dropout, arch.residual, fast=arch.fast)

        self.layers = nn.ModuleList(layer() for _ in range(arch.layers))
        self.head = GraphHead(arch.hidden, arch.outputs, arch.head_layers, arch.activation, arch.dropout, arch.head_norm,
                              arch.fast)
        self.l2norm = arch.l2norm
        if arch.matmul == "onednn":
            use_onednn(self)

    def forward(self, batch) -> torch.Tensor:
        h = self.nodes(batch)
        e = self.edges(batch.edge_attr) if self.edges is not None else None
        structure = gcn_adjacency(batch.edge_index, batch.num_nodes) if isinstance(self.layers[0], GCNLayer) else batch.edge_index
        for layer in self.layers:
            if isinstance(layer, GPSLayer):
                h, e = layer(h, structure, e, batch.batch, batch.num_graphs)
            else:
                h, e = layer(h, structure, e)
        if self.l2norm:
            h = F.normalize(h, p=2, dim=-1)
        return self.head(h, batch.batch, batch.num_graphs)


def parameter_count(model: nn.Module) -> int:
    """Trainable parameters (BatchNorm's running statistics are buffers, not counted)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class LapPEEncoder(nn.Module):
    """GraphGPS's DeepSet Laplacian encoding: per node and frequency (eigenvector entry, eigenvalue) through
    Linear(2, 2p), ReLU, Linear(2p, p), ReLU, padding masked, summed over frequencies. In training each
    eigenvector's sign flips at random (one draw per batch), as GraphGPS does."""

    def __init__(self, dim_pe: int = 16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 2 * dim_pe), nn.ReLU(), nn.Linear(2 * dim_pe, dim_pe), nn.ReLU())

    def forward(self, eigvecs: torch.Tensor, eigvals: torch.Tensor) -> torch.Tensor:
        if self.training:
            eigvecs = eigvecs * (torch.rand(eigvecs.shape[1], device=eigvecs.device) >= 0.5).float().mul(2).sub(1)
        pairs = torch.stack([eigvecs, eigvals], dim=-1)  # [nodes, frequencies, 2]
        empty = torch.isnan(pairs)
        out = self.net(pairs.masked_fill(empty, 0.0)).masked_fill(empty[..., :1], 0.0)
        return out.sum(dim=1)


BITS = 15  # random bits per element of a ``bits`` dropout mask


def keep_mask(shape: tuple[int, ...], p: float, device: torch.device) -> torch.Tensor:
    """Which elements a ``bits`` dropout keeps (bool): ``BITS`` random bits per element, four elements to a
    64-bit draw, compared with round(p 2^15)."""
    count = math.prod(shape)
    words = torch.empty((count + 3) // 4, dtype=torch.int64, device=device).random_()  # 63 uniform bits each
    return ((words.view(torch.int16)[:count] & (2**BITS - 1)) >= round(p * 2**BITS)).view(shape)


def dropout(x: torch.Tensor, p: float, training: bool, draw: str = "uniform") -> torch.Tensor:
    """Inverted dropout with its mask drawn by ``draw``: ``bernoulli`` (``F.dropout``), ``uniform`` (the same
    distribution in about half the time on a CPU, where ``bernoulli_`` is slow) or ``bits`` (the drop
    probability rounded to a multiple of 2^-15, and kept elements scaled by its exact inverse)."""
    if not training or p == 0.0:
        return x
    if draw == "bernoulli":
        return F.dropout(x, p, training)
    if draw == "uniform":
        return x * (torch.rand_like(x) >= p) / (1.0 - p)
    kept = 1.0 - round(p * 2**BITS) / 2**BITS
    return x * keep_mask(tuple(x.shape), p, x.device).to(x.dtype).mul_(1.0 / kept)


class Dropout(nn.Module):
    """``nn.Dropout`` drawn as ``dropout`` draws it."""

    def __init__(self, p: float, draw: str = "uniform"):
        super().__init__()
        self.p, self.draw = p, draw

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return dropout(x, self.p, self.training, self.draw)


def self_attention(attention: nn.MultiheadAttention, dense: torch.Tensor, mask: torch.Tensor,
                   keep: torch.Tensor | None = None, draw: str = "uniform") -> torch.Tensor:
    """``attention(dense, dense, dense, key_padding_mask=~mask)``, its weights' dropout in training drawn by
    ``dropout`` (with ``bernoulli_``, that [graphs, heads, nodes, nodes] mask took over a third of a GPS step),
    or given as ``keep``, the weights it keeps (``attention_keep`` draws it by ``draw``)."""
    p = attention.dropout if attention.training else 0.0
    if p == 0.0:
        return attention(dense, dense, dense, key_padding_mask=~mask, need_weights=False)[0]
    graphs, nodes, dim = dense.shape
    heads = attention.num_heads
    q, k, v = (t.view(graphs, nodes, heads, dim // heads).transpose(1, 2)
               for t in F.linear(dense, attention.in_proj_weight, attention.in_proj_bias).chunk(3, dim=-1))
    scores = (q @ k.transpose(-2, -1)) * (dim // heads) ** -0.5
    weights = scores.masked_fill(~mask[:, None, None, :], float("-inf")).softmax(dim=-1)
    keep = attention_keep(attention, dense, draw) if keep is None else keep
    return attention.out_proj((weights * keep / (1.0 - p) @ v).transpose(1, 2).reshape(graphs, nodes, dim))


def attention_keep(attention: nn.MultiheadAttention, dense: torch.Tensor, draw: str = "uniform") -> torch.Tensor:
    """The attention weights dropout keeps, [graphs, heads, nodes, nodes], drawn as ``dropout`` draws them."""
    graphs, nodes, _ = dense.shape
    if draw == "bits":
        return keep_mask((graphs, attention.num_heads, nodes, nodes), attention.dropout, dense.device)
    return torch.rand(graphs, attention.num_heads, nodes, nodes, dtype=dense.dtype, device=dense.device) >= attention.dropout


def attention_by_size(attention: nn.MultiheadAttention, h: torch.Tensor, batch: torch.Tensor, graphs: int,
                      chunk: int = 16, recompute: bool = True, draw: str = "uniform") -> torch.Tensor:
    """Full self-attention within each graph of a batch, computed on chunks of graphs of similar size so
    that little of the work goes to padding (``chunk=graphs`` is PyG's one dense, padded batch). With
    ``recompute``, training keeps only each chunk's input and its dropout mask (bytes) and recomputes the
    attention in the backward pass, instead of holding every chunk's [graphs, heads, nodes, nodes] weights
    in floats for it."""
    sizes = torch.bincount(batch, minlength=graphs)
    starts = torch.cumsum(sizes, 0) - sizes
    out = torch.empty_like(h)
    for group in torch.argsort(sizes, stable=True).split(chunk):
        n = sizes[group]
        offsets = torch.repeat_interleave(starts[group] - (torch.cumsum(n, 0) - n), n)
        rows = torch.arange(int(n.sum()), device=h.device) + offsets  # the group's nodes, graph by graph
        local = torch.repeat_interleave(torch.arange(len(group), device=h.device), n)
        dense, mask = to_dense_batch(h[rows], local)
        if recompute and attention.training and attention.dropout > 0.0 and torch.is_grad_enabled():
            keep = attention_keep(attention, dense, draw)  # drawn once, kept as bytes: the recomputation reuses it
            attended = checkpoint(self_attention, attention, dense, mask, keep, use_reentrant=False,
                                  preserve_rng_state=False)
        else:
            attended = self_attention(attention, dense, mask, draw=draw)
        out[rows] = attended[mask].to(out.dtype)  # bf16 attention into an fp32 batch under mixed precision
    return out


class GPSLayer(nn.Module):
    """GraphGPS's layer as Tönshoff et al. ran it: a local GatedGCN (its edge states carried on) with residual
    and BatchNorm, plus global multi-head attention with residual and BatchNorm, summed; then a feed-forward
    block (Linear(d, 2d), act, dropout, Linear(2d, d), dropout) with residual and BatchNorm."""

    def __init__(self, dim: int, heads: int, activation: str, dropout: float, attention_dropout: float, chunk: int = 16,
                 fast: bool = False):
        super().__init__()
        self.local = GatedGCNLayer(dim, dropout, residual=False, activation=activation, fast=fast)
        self.attention = nn.MultiheadAttention(dim, heads, dropout=attention_dropout, batch_first=True)
        self.norm_local, self.norm_global, self.norm_out = (nn.BatchNorm1d(dim) for _ in range(3))
        self.draw = draw(fast, "uniform")
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), ACTIVATIONS[activation](), Dropout(dropout, self.draw),
                                nn.Linear(2 * dim, dim), Dropout(dropout, self.draw))
        self.dropout, self.chunk, self.recompute = dropout, chunk, True

    def forward(self, x, edge_index, edge_attr, batch, graphs):
        h_local, e = self.local(x, edge_index, edge_attr)
        h_local = self.norm_local(h_local + x)
        h_global = attention_by_size(self.attention, x, batch, graphs, self.chunk, self.recompute, self.draw)
        h_global = self.norm_global(dropout(h_global, self.dropout, self.training, self.draw) + x)
        h = h_local + h_global
        return self.norm_out(h + self.ff(h)), e
