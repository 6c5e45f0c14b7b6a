"""GMNN's EM on a batch of members (chapter 3): q, the base model, and p, a GCN that reads labels (and, as the
GMNN paper writes p, the node features too), trained in turn on each other's predictions, every member with its
own label samples (``models.batched`` trains them)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F

from graphrepro.models.batched import MODELS, AfterFeatures, Fitted, Graph, Inputs, Members, Model, evaluate, predict, train


@dataclass
class GMNNResult:
    """GMNN's outcome per member: the pre-trained base (q0), p and q at their best validation accuracy over
    the EM phases, and the better of those two by validation accuracy."""

    base: list[dict[str, float]]
    p: list[dict[str, float]]
    q: list[dict[str, float]]
    best: list[dict[str, float]]
    epochs: int  # trained epochs of the slowest member, pre-training included


def _sample_one_hot(probabilities: torch.Tensor, members: Members) -> torch.Tensor:
    """One categorical draw per node and member, from the member's own generator, as one-hot rows."""
    draws = [torch.multinomial(p, 1, generator=g).squeeze(-1) for p, g in zip(probabilities, members.masks)]
    return F.one_hot(torch.stack(draws), probabilities.shape[-1]).float()


def gmnn(base: Model, graph: Graph, y: torch.Tensor, split: dict[str, torch.Tensor], hyper: dict[str, torch.Tensor],
         seeds: list[int], hidden: int, max_epochs: int, patience: int, stop_on: str = "loss", loops: int = 10,
         epochs: int = 100, tau: float = 0.1, p_features: bool = False) -> GMNNResult:
    """GMNN (Qu et al. 2019; "W/o Attr. in p", its public code, unless ``p_features``: then p reads the node
    features beside the labels, pϕ(y_n | y_NB(n), x_V) as the paper writes it): pre-train q (the base model) with early stopping and restore
    it; then ``loops`` times an M-step (p, a GCN on label inputs with the same hyperparameters, trains for
    ``epochs`` on one sample of q's annealed predictions, gold labels on training nodes, all nodes) and
    an E-step (q trains for ``epochs`` on p's predictions, gold on training nodes, all nodes). Each
    network keeps its optimiser state across phases, as GMNN's code does."""
    classes, n = int(y.max()) + 1, graph.num_nodes
    everything = {**split, "train": torch.arange(n)}
    gold = F.one_hot(y[split["train"]], classes).float()
    q = train(base, graph, y, split, hyper, seeds, hidden, max_epochs, patience, stop_on)
    q_params, q_state = q.params, q.optimiser
    q0 = [{"val_acc": r.val_acc, "val_loss": r.val_loss, "best_epoch": r.best_epoch} for r in q.results]
    q0_test = evaluate(base, q_params, graph, y, split["test"], hyper, seeds).tolist()
    trained = max(r.epochs_run for r in q.results)
    sampler = Members(seeds, stream=2)

    def p_inputs(labels: torch.Tensor) -> Inputs:
        """What p reads: each member's label sample, after the node features when ``p_features``."""
        return AfterFeatures(labels) if p_features else labels

    p_params, p_state = None, None
    best_p = [{"val_acc": -1.0} for _ in seeds]
    best_q = [{"val_acc": -1.0} for _ in seeds]
    for _ in range(loops):
        probabilities = torch.softmax(predict(base, q_params, graph, hyper, seeds) / tau, -1)
        labels = _sample_one_hot(probabilities, sampler)
        labels[:, split["train"]] = gold
        p = train(MODELS["GCN"], graph, y, everything, hyper, seeds, hidden, epochs, epochs + 1, params=p_params,
                  optimiser=p_state, targets=labels, inputs=p_inputs(labels), select="acc", stream=1)
        p_params, p_state = p.last_params, p.last_optimiser
        _keep_best(best_p, p, MODELS["GCN"], graph, y, split, hyper, seeds, p_inputs(labels))
        targets = torch.softmax(predict(MODELS["GCN"], p_params, graph, hyper, seeds, p_inputs(labels)), -1)
        targets[:, split["train"]] = gold
        q = train(base, graph, y, everything, hyper, seeds, hidden, epochs, epochs + 1, params=q_params, optimiser=q_state,
                  targets=targets, select="acc")
        q_params, q_state = q.last_params, q.last_optimiser
        _keep_best(best_q, q, base, graph, y, split, hyper, seeds)
        trained += 2 * epochs
    best = [p_ if p_["val_acc"] > q_["val_acc"] else q_ for p_, q_ in zip(best_p, best_q)]
    return GMNNResult([{**r, "test_acc": t} for r, t in zip(q0, q0_test)], best_p, best_q, best, trained)


def _keep_best(best: list[dict[str, float]], fitted: Fitted, model: Model, graph: Graph, y: torch.Tensor,
               split: dict[str, torch.Tensor], hyper: dict[str, torch.Tensor], seeds: list[int],
               inputs: Inputs = None) -> None:
    """Update each member's best phase (strictly higher validation accuracy) with its test accuracy then."""
    test = evaluate(model, fitted.params, graph, y, split["test"], hyper, seeds, inputs).tolist()
    for s, (r, t) in enumerate(zip(fitted.results, test)):
        if r.val_acc > best[s]["val_acc"]:
            best[s] = {"val_acc": r.val_acc, "val_loss": r.val_loss, "test_acc": t}
