"""Many small full-batch trainings run as one model: the members of a batch share each graph product
(one block-diagonal sparse product for all of them) but each has its own initial weights, dropout masks
and samples (from its own generators), learning rate, weight decay, dropout rates, early stopping, and
restored best weights and optimiser state; a member that stops leaves the batch.

Models are functions of a parameter dict whose tensors carry the member axis first, so the batch
shrinks by indexing. Activations are ``[members, nodes, features]``; sparse node features go through
``graphrepro.sparse.block_sum`` with each member's dropped-out copy of the non-zeros only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional as F

from graphrepro import sparse

Params = dict[str, torch.Tensor]


@dataclass
class Graph:
    """What the models read: sparse features (CSR by node), the GCN matrix and the FAGCN edges."""

    num_nodes: int
    features: dict[str, torch.Tensor]  # CSR structure of X (rows nodes, cols features) and its values
    feature_values: torch.Tensor
    adj: dict[str, torch.Tensor]  # CSR structure of A + I (row = destination)
    adj_values: torch.Tensor  # D^-1/2 (A + I) D^-1/2 in that order
    edge_index: torch.Tensor  # without self-loops, sorted by destination
    edges: dict[str, torch.Tensor]  # CSR structure of edge_index
    degree_norm: torch.Tensor  # d^-1/2 per edge (destination and source), degrees clamped at 1

    @property
    def num_features(self) -> int:
        """Columns of the feature matrix."""
        return int(self.features["shape"][1])


@dataclass(frozen=True)
class AfterFeatures:
    """Dense per-member inputs ``[S, nodes, D]`` that the input layer reads after the graph's sparse node
    features, as if its input were ``[X ‖ dense]`` (GMNN's p with features: the labels after X)."""

    dense: torch.Tensor

    def __getitem__(self, rows: Any) -> AfterFeatures:
        return AfterFeatures(self.dense[rows])


Inputs = torch.Tensor | AfterFeatures | None  # what the input layer reads: the features, dense inputs, or both


def input_dim(graph: Graph, inputs: Inputs) -> int:
    """The input layer's width for ``inputs``."""
    if inputs is None:
        return graph.num_features
    if isinstance(inputs, AfterFeatures):
        return graph.num_features + inputs.dense.shape[-1]
    return inputs.shape[-1]


def make_graph(x: torch.Tensor, edge_index: torch.Tensor) -> Graph:
    """A ``Graph`` from dense or sparse features and an undirected edge list (self-loops dropped)."""
    n = x.shape[0]
    x = x.to_sparse_coo().coalesce() if not x.is_sparse else x.coalesce()
    rows, cols = x.indices()
    order = sparse.sort_by_destination(torch.stack([cols, rows]), max(n, x.shape[1]))
    features = sparse.csr_structure(torch.stack([cols[order], rows[order]]), n, x.shape[1])
    edge_index = edge_index[:, edge_index[0] != edge_index[1]]
    edge_index = torch.unique(torch.cat([edge_index, edge_index.flip(0)], dim=1), dim=1)
    edge_index = edge_index[:, sparse.sort_by_destination(edge_index, n)]
    loops = torch.arange(n)
    with_loops = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    with_loops = with_loops[:, sparse.sort_by_destination(with_loops, n)]
    degree = torch.bincount(with_loops[1], minlength=n).float()
    weight = degree[with_loops[0]].rsqrt() * degree[with_loops[1]].rsqrt()
    plain = torch.bincount(edge_index[1], minlength=n).clamp(min=1).float().rsqrt()
    return Graph(n, features, x.values()[order].float(), sparse.csr_structure(with_loops, n), weight, edge_index,
                 sparse.csr_structure(edge_index, n),
                 plain[edge_index[1]] * plain[edge_index[0]])


class Members:
    """Each member's generators: one for initial weights, one for dropout masks and samples, seeded by
    its seed (``stream`` separates the networks of one run, e.g. GMNN's q and p)."""

    def __init__(self, seeds: list[int], stream: int = 0):
        self.seeds = list(seeds)
        self.init = [torch.Generator().manual_seed(s + 2_000_029 * stream) for s in self.seeds]
        self.masks = [torch.Generator().manual_seed(s + 1_000_003 + 2_000_029 * stream) for s in self.seeds]

    def glorot(self, rows: int, cols: int) -> torch.Tensor:
        """Xavier-uniform ``[members, rows, cols]``."""
        bound = math.sqrt(6.0 / (rows + cols))
        return torch.stack([torch.empty(rows, cols).uniform_(-bound, bound, generator=g) for g in self.init])

    def keep(self, shape: tuple[int, ...], rates: torch.Tensor, active: list[int]) -> torch.Tensor:
        """Inverted-dropout multipliers ``[len(active), *shape]``: 0 or 1 / (1 - rate), member by member."""
        masks = [(torch.rand(shape, generator=self.masks[i]) >= rate).float() / (1 - rate) if rate > 0 else torch.ones(shape)
                 for i, rate in zip(active, rates.tolist())]
        return torch.stack(masks)


def _dropout(h: torch.Tensor, rates: torch.Tensor, members: Members, active: list[int], training: bool) -> torch.Tensor:
    """Inverted dropout on ``[members, ...]`` with member s's mask from its own generator."""
    if not training or not bool((rates > 0).any()):
        return h
    return h * members.keep(tuple(h.shape[1:]), rates, active).to(h.device)


def _sparse_input(graph: Graph, weight: torch.Tensor, rates: torch.Tensor, members: Members, active: list[int],
                  training: bool) -> torch.Tensor:
    """Each member's dropped-out sparse features times its weight ``[S, F, H]``: ``[S, nodes, H]`` (the
    product runs member by member as diagonal blocks, so each member's weight stays in cache)."""
    values = _dropout(graph.feature_values.expand(weight.shape[0], -1), rates, members, active, training)
    return sparse.block_sum(values, weight, graph.features)


def _first_layer(graph: Graph, weight: torch.Tensor, hyper: dict[str, torch.Tensor], members: Members, active: list[int],
                 training: bool, inputs: Inputs) -> torch.Tensor:
    """The input layer's product: the sparse node features, each member's dense ``inputs [S, N, F]``, or both
    (``AfterFeatures``: the features' rows of the weight, then the dense inputs' rows)."""
    rates = hyper["input_dropout"]
    if inputs is None:
        return _sparse_input(graph, weight, rates, members, active, training)
    if isinstance(inputs, AfterFeatures):
        f = graph.num_features
        return (_sparse_input(graph, weight[:, :f].contiguous(), rates, members, active, training)
                + _linear(_dropout(inputs.dense, rates, members, active, training), weight[:, f:]))
    return _linear(_dropout(inputs, rates, members, active, training), weight)


def _propagate(graph: Graph, h: torch.Tensor) -> torch.Tensor:
    """``D^-1/2 (A + I) D^-1/2`` times every member's features ``[S, nodes, H]``, one diagonal block each."""
    return sparse.block_sum(graph.adj_values.expand(h.shape[0], -1), h, graph.adj)


def _linear(h: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``[S, nodes, in]`` times each member's ``[in, out]``: ``[S, nodes, out]``."""
    return torch.einsum("sni,sio->sno", h, weight)


@dataclass(frozen=True)
class Model:
    """A stacked model: ``init(members, in_dim, hidden, classes)`` and ``forward(params, graph, hyper,
    members, active, training, inputs=None)`` -> logits ``[members, nodes, classes]`` (``inputs``:
    dense per-member inputs in place of the graph's features)."""

    name: str
    init: Callable[[Members, int, int, int], Params]
    forward: Callable[..., torch.Tensor]


def _two_layer_init(members: Members, in_dim: int, hidden: int, classes: int) -> Params:
    s = len(members.seeds)
    return {"w1": members.glorot(in_dim, hidden), "b1": torch.zeros(s, 1, hidden),
            "w2": members.glorot(hidden, classes), "b2": torch.zeros(s, 1, classes)}


def _mlp(params: Params, graph: Graph, hyper: dict[str, torch.Tensor], members: Members, active: list[int],
         training: bool, inputs: Inputs = None, propagate: bool = False) -> torch.Tensor:
    h = _first_layer(graph, params["w1"], hyper, members, active, training, inputs)
    h = F.relu((_propagate(graph, h) if propagate else h) + params["b1"])
    h = _linear(_dropout(h, hyper["dropout"], members, active, training), params["w2"])
    return (_propagate(graph, h) if propagate else h) + params["b2"]


def _gcn(params: Params, graph: Graph, hyper: dict[str, torch.Tensor], members: Members, active: list[int],
         training: bool, inputs: Inputs = None) -> torch.Tensor:
    return _mlp(params, graph, hyper, members, active, training, inputs, propagate=True)


def _fagcn_init(members: Members, in_dim: int, hidden: int, classes: int, layers: int = 2) -> Params:
    params = _two_layer_init(members, in_dim, hidden, classes)
    for i in range(layers):
        gate = members.glorot(2 * hidden, 1)
        params[f"gate_dst{i}"], params[f"gate_src{i}"] = gate[:, :hidden].contiguous(), gate[:, hidden:].contiguous()
        params[f"gate_b{i}"] = torch.zeros(len(members.seeds), 1)
    return params


def _fagcn(params: Params, graph: Graph, hyper: dict[str, torch.Tensor], members: Members, active: list[int],
           training: bool, inputs: Inputs = None) -> torch.Tensor:
    """FAGCN (Bo et al. 2021): ``raw = dropout(ReLU(x W1 + b1))``; per layer, signed edge gates
    ``tanh(g_dst h_i + g_src h_j + b)`` scaled by ``d_i^-1/2 d_j^-1/2`` and dropped out, summed over
    neighbours, plus ``eps * raw``; then ``W2``."""
    h = F.relu(_first_layer(graph, params["w1"], hyper, members, active, training, inputs) + params["b1"])
    raw = h = _dropout(h, hyper["dropout"], members, active, training)
    src, dst = graph.edge_index
    layers = sum(1 for k in params if k.startswith("gate_b"))
    for i in range(layers):
        score_dst, score_src = torch.bmm(h, params[f"gate_dst{i}"]), torch.bmm(h, params[f"gate_src{i}"])  # [S, N, 1]
        gates = torch.tanh(score_dst[:, dst, 0] + score_src[:, src, 0] + params[f"gate_b{i}"]) * graph.degree_norm
        gates = _dropout(gates, hyper["dropout"], members, active, training)
        h = sparse.block_sum(gates, h, graph.edges) + hyper["eps"].view(-1, 1, 1) * raw
    return _linear(h, params["w2"]) + params["b2"]


MODELS = {
    "MLP": Model("MLP", _two_layer_init, _mlp),
    "GCN": Model("GCN", _two_layer_init, _gcn),
    "FAGCN": Model("FAGCN", _fagcn_init, _fagcn),
}


@dataclass
class Adam:
    """``torch.optim.Adam`` (L2 weight decay added to the gradient) with a learning rate, weight decay and
    step count per member; its state shrinks with the batch and can be saved and restored per member."""

    lr: torch.Tensor
    weight_decay: torch.Tensor
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    steps: torch.Tensor | None = None
    moments: dict[str, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)

    def step(self, params: Params, grads: Params) -> None:
        """One update of every parameter in place."""
        self.steps = (torch.zeros_like(self.lr) if self.steps is None else self.steps) + 1
        beta1, beta2 = self.betas
        correction1, correction2 = 1 - beta1**self.steps, 1 - beta2**self.steps
        for name, p in params.items():
            shape = (-1,) + (1,) * (p.dim() - 1)
            grad = grads[name] + self.weight_decay.view(shape) * p
            m, v = self.moments.get(name, (torch.zeros_like(p), torch.zeros_like(p)))
            m = m.lerp(grad, 1 - beta1)
            v = v * beta2 + grad * grad * (1 - beta2)
            self.moments[name] = (m, v)
            denom = v.sqrt() / correction2.sqrt().view(shape) + self.eps
            p.sub_((self.lr / correction1).view(shape) * m / denom)

    def keep(self, index: torch.Tensor) -> None:
        """Keep only the members at ``index``."""
        self.lr, self.weight_decay = self.lr[index], self.weight_decay[index]
        self.steps = None if self.steps is None else self.steps[index]
        self.moments = {k: (m[index], v[index]) for k, (m, v) in self.moments.items()}

    def copy(self) -> Adam:
        """An independent copy of the whole state."""
        return Adam(self.lr.clone(), self.weight_decay.clone(), self.betas, self.eps,
                    None if self.steps is None else self.steps.clone(),
                    {k: (m.clone(), v.clone()) for k, (m, v) in self.moments.items()})

    def save(self, row: int, into: Adam, member: int) -> None:
        """Copy the state of batch row ``row`` into member ``member`` of ``into`` (a full-size copy)."""
        into.steps[member] = self.steps[row]
        for k, (m, v) in self.moments.items():
            into.moments[k][0][member], into.moments[k][1][member] = m[row], v[row]


@dataclass
class MemberResult:
    """One member's outcome: metrics at its selected (best validation) epoch."""

    best_epoch: int = -1
    epochs_run: int = 0
    val_loss: float = math.inf
    val_acc: float = -1.0
    losses: list[float] = field(default_factory=list)  # training loss at every epoch it trained
    counter: int = 0


@dataclass
class Fitted:
    """The members' results, their weights and optimiser state at the selected epoch, and (when no member
    left early) at the last epoch."""

    results: list[MemberResult]
    params: Params
    optimiser: Adam
    last_params: Params | None = None
    last_optimiser: Adam | None = None


def _accuracy(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (logits.argmax(-1) == y).float().mean(-1)


def _losses(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Each member's mean cross-entropy: logits ``[S, nodes, classes]``, labels ``[nodes]`` or per-member
    distributions ``[S, nodes, classes]`` (soft targets) -> ``[S]``."""
    if y.dim() == 3:
        return -(y * F.log_softmax(logits, -1)).sum(-1).mean(-1)
    return F.cross_entropy(logits.permute(1, 2, 0), y.unsqueeze(1).expand(-1, logits.shape[0]), reduction="none").mean(0)


def _full_state(params: Params, optimiser: Adam) -> Adam:
    state = optimiser.copy()
    state.steps = torch.zeros_like(state.lr) if state.steps is None else state.steps
    state.moments = {k: state.moments.get(k, (torch.zeros_like(p), torch.zeros_like(p))) for k, p in params.items()}
    return state


def train(model: Model, graph: Graph, y: torch.Tensor, split: dict[str, torch.Tensor], hyper: dict[str, torch.Tensor],
          seeds: list[int], hidden: int, max_epochs: int, patience: int, stop_on: str = "loss",
          params: Params | None = None, optimiser: Adam | None = None, targets: torch.Tensor | None = None,
          inputs: Inputs = None, select: str = "loss", stream: int = 0) -> Fitted:
    """Train every member (``hyper``: per-member tensors ``lr``, ``weight_decay``, ``dropout``,
    ``input_dropout``, and ``eps`` for FAGCN) on ``split["train"]`` against ``targets`` (default: the labels
    ``y``), until ``patience`` evaluations without a lower validation loss (``stop_on="loss_acc"``: nor a
    higher validation accuracy) or ``max_epochs``. The selected epoch is the one of lowest validation loss
    (``select="acc"``: first highest validation accuracy). ``params``/``optimiser`` continue an earlier
    training; ``inputs`` replaces the node features by dense per-member inputs (``AfterFeatures``: adds them)."""
    members = Members(seeds, stream)
    classes = int(y.max()) + 1
    params = model.init(members, input_dim(graph, inputs), hidden, classes) if params is None else params
    params = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    optimiser = Adam(hyper["lr"].clone(), hyper["weight_decay"].clone()) if optimiser is None else optimiser.copy()
    hyper = {k: v.clone() for k, v in hyper.items()}
    targets = y if targets is None else targets
    results = [MemberResult() for _ in seeds]
    best = {k: v.detach().clone() for k, v in params.items()}
    best_state = _full_state(params, optimiser)
    active = list(range(len(seeds)))
    best_acc = [-1.0] * len(seeds)
    train_idx, val_idx = split["train"], split["valid"]
    for epoch in range(max_epochs):
        rows = torch.tensor(active)
        own_inputs = None if inputs is None else inputs[rows]
        logits = model.forward(params, graph, hyper, members, active, True, own_inputs).float()  # fp32 losses under bf16
        own_targets = targets[train_idx] if targets.dim() == 1 else targets[rows][:, train_idx]
        losses = _losses(logits[:, train_idx], own_targets)
        grads = torch.autograd.grad(losses.sum(), list(params.values()))
        losses = losses.detach()
        with torch.no_grad():
            optimiser.step(params, dict(zip(params, grads)))
            logits = model.forward(params, graph, hyper, members, active, False, own_inputs)[:, val_idx].float()
            val_loss, val_acc = _losses(logits, y[val_idx]).tolist(), _accuracy(logits, y[val_idx]).tolist()
        stopped = []
        for row, (member, loss, acc, train_loss) in enumerate(zip(active, val_loss, val_acc, losses.tolist())):
            r = results[member]
            r.losses.append(train_loss)
            r.epochs_run = epoch + 1
            improved = loss < r.val_loss or (stop_on == "loss_acc" and acc > best_acc[member])
            better = loss < r.val_loss if select == "loss" else acc > r.val_acc
            best_acc[member] = max(best_acc[member], acc)
            if better:
                r.val_loss, r.val_acc, r.best_epoch = loss, acc, epoch
                for k, v in params.items():
                    best[k][member] = v.detach()[row]
                optimiser.save(row, best_state, member)
            r.counter = 0 if improved else r.counter + 1
            if r.counter >= patience or not math.isfinite(train_loss):
                stopped.append(row)
        if stopped:
            keep = torch.tensor([row for row in range(len(active)) if row not in stopped], dtype=torch.long)
            active = [active[row] for row in keep.tolist()]
            if not active:
                break
            params = {k: v.detach()[keep].requires_grad_(True) for k, v in params.items()}
            optimiser.keep(keep)
            hyper = {k: v[keep] for k, v in hyper.items()}
    whole = len(active) == len(seeds)
    return Fitted(results, best, best_state, {k: v.detach() for k, v in params.items()} if whole else None,
                  optimiser if whole else None)


def predict(model: Model, params: Params, graph: Graph, hyper: dict[str, torch.Tensor], seeds: list[int],
            inputs: Inputs = None) -> torch.Tensor:
    """Every member's logits ``[S, nodes, classes]`` (no dropout)."""
    with torch.no_grad():
        return model.forward(params, graph, hyper, Members(seeds), list(range(len(seeds))), False, inputs).float()


def evaluate(model: Model, params: Params, graph: Graph, y: torch.Tensor, index: torch.Tensor,
             hyper: dict[str, torch.Tensor], seeds: list[int], inputs: Inputs = None) -> torch.Tensor:
    """Each member's accuracy on ``index`` with ``params`` (no dropout)."""
    return _accuracy(predict(model, params, graph, hyper, seeds, inputs)[:, index], y[index])


def hyper_tensors(configs: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
    """Per-member hyperparameter tensors from run configs (``eps`` 0 where a config has none)."""
    names = ("lr", "weight_decay", "dropout", "input_dropout", "eps")
    return {n: torch.tensor([float(c.get(n, 0.0)) for c in configs]) for n in names}
