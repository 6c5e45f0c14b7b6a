"""The batched trainer against one-at-a-time training: torch.optim.Adam on plain modules, member by
member; a member's run does not depend on the batch it trains in; stopped members leave the batch."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F
from torch_geometric.nn import GCNConv

from graphrepro.models import batched, gmnn


@pytest.fixture
def toy():
    g = torch.Generator().manual_seed(0)
    n, f, classes = 40, 12, 3
    x = (torch.rand(n, f, generator=g) < 0.3).float()
    x = x / x.sum(1, keepdim=True).clamp(min=1)
    edges = torch.randint(0, n, (2, 120), generator=g)
    y = (x @ torch.randn(f, classes, generator=g)).argmax(1)  # learnable from the features
    perm = torch.randperm(n, generator=g)
    split = {"train": perm[:20], "valid": perm[20:30], "test": perm[30:]}
    return x, edges, y, split


def _adam_losses(forward, parameters, y, split, lr, wd, epochs) -> list[float]:
    """Training losses of ``forward()`` under torch's own Adam, one full-batch step per epoch."""
    optimiser = torch.optim.Adam(parameters, lr=lr, weight_decay=wd)
    losses = []
    for _ in range(epochs):
        optimiser.zero_grad()
        loss = F.cross_entropy(forward()[split["train"]], y[split["train"]])
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return losses


def _reference_losses(model: str, x, edges, y, split, params, lr, wd, epochs, eps=0.0) -> list[float]:
    """One MLP or FAGCN member, written with plain tensors."""
    w1, b1, w2, b2 = (params[k].clone().requires_grad_(True) for k in ("w1", "b1", "w2", "b2"))
    gates = {k: params[k].clone().requires_grad_(True) for k in sorted(params) if k.startswith("gate")}
    graph = batched.make_graph(x, edges)
    src, dst = graph.edge_index

    def forward():
        raw = h = F.relu(x @ w1[0] + b1[0])
        for i in range(2 if model == "FAGCN" else 0):
            gate = torch.tanh(h[dst] @ gates[f"gate_dst{i}"][0] + h[src] @ gates[f"gate_src{i}"][0] + gates[f"gate_b{i}"][0, 0])
            h = torch.zeros_like(h).index_add(0, dst, (gate.squeeze(-1) * graph.degree_norm).unsqueeze(-1) * h[src]) + eps * raw
        return h @ w2[0] + b2[0]

    return _adam_losses(forward, [w1, b1, w2, b2, *gates.values()], y, split, lr, wd, epochs)


def _gcn_reference(x, edges, y, split, params, lr, wd, epochs) -> list[float]:
    """Kipf's GCN from PyG's ``GCNConv`` layers, with the member's initial weights and biases."""
    undirected = torch.unique(torch.cat([edges, edges.flip(0)], dim=1), dim=1)
    undirected = undirected[:, undirected[0] != undirected[1]]
    first, second = GCNConv(x.shape[1], 8), GCNConv(8, 3)
    with torch.no_grad():
        first.lin.weight.copy_(params["w1"][0].t())
        first.bias.copy_(params["b1"][0, 0])
        second.lin.weight.copy_(params["w2"][0].t())
        second.bias.copy_(params["b2"][0, 0])
    return _adam_losses(lambda: second(F.relu(first(x, undirected)), undirected), [*first.parameters(), *second.parameters()],
                        y, split, lr, wd, epochs)


@pytest.mark.parametrize("model", ["MLP", "GCN", "FAGCN"])
@pytest.mark.slow
def test_each_member_matches_one_at_a_time_training(toy, model):
    """Dropout off, the same initial weights: a member's losses match torch's Adam on plain layers to 1e-5,
    with learning rate, weight decay and eps differing between members of one batch."""
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    configs = [{"lr": 0.01, "weight_decay": 5e-4, "eps": 0.3}, {"lr": 0.05, "weight_decay": 0.0, "eps": 0.7},
               {"lr": 0.002, "weight_decay": 1e-2, "eps": 0.1}]
    hyper = batched.hyper_tensors(configs)
    seeds = [0, 1, 2]
    params = batched.MODELS[model].init(batched.Members(seeds), x.shape[1], 8, 3)
    results = batched.train(batched.MODELS[model], graph, y, split, hyper, seeds, 8, max_epochs=25, patience=1000,
                            params=params).results
    for i, c in enumerate(configs):
        one = {k: v[i : i + 1] for k, v in params.items()}
        if model == "GCN":
            reference = _gcn_reference(x, edges, y, split, one, c["lr"], c["weight_decay"], 25)
        else:
            reference = _reference_losses(model, x, edges, y, split, one, c["lr"], c["weight_decay"], 25, c["eps"])
        torch.testing.assert_close(torch.tensor(results[i].losses), torch.tensor(reference), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("model", ["MLP", "GCN", "FAGCN"])
def test_a_member_trains_the_same_alone_and_in_a_batch(toy, model):
    """Dropout on: each member's masks come from its own generator, so its run does not depend on the batch."""
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    configs = [{"lr": 0.01, "weight_decay": 5e-4, "dropout": 0.5, "input_dropout": 0.2, "eps": 0.3},
               {"lr": 0.05, "weight_decay": 0.0, "dropout": 0.2, "input_dropout": 0.8, "eps": 0.5}]
    together = batched.train(batched.MODELS[model], graph, y, split, batched.hyper_tensors(configs), [3, 4], 8, 30, 1000).results
    alone = batched.train(batched.MODELS[model], graph, y, split, batched.hyper_tensors(configs[1:]), [4], 8, 30, 1000).results
    torch.testing.assert_close(torch.tensor(together[1].losses), torch.tensor(alone[0].losses), atol=1e-6, rtol=1e-6)


def test_stopped_members_leave_the_batch_and_keep_their_best_weights(toy):
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    configs = [{"lr": 0.5, "weight_decay": 0.0}, {"lr": 0.01, "weight_decay": 0.0}]  # the first overfits fast
    fitted = batched.train(batched.MODELS["GCN"], graph, y, split, batched.hyper_tensors(configs), [0, 1], 8,
                           max_epochs=300, patience=10)
    results, best = fitted.results, fitted.params
    fast, slow = results
    for r in results:  # stopped 10 evaluations after the best one, unless it reached the epoch cap
        assert r.epochs_run == min(r.best_epoch + 11, 300) and len(r.losses) == r.epochs_run
    assert fast.epochs_run < slow.epochs_run  # the second kept training after the first left the batch
    accuracy = batched.evaluate(batched.MODELS["GCN"], best, graph, y, split["valid"], batched.hyper_tensors(configs), [0, 1])
    assert accuracy[0] == pytest.approx(fast.val_acc)  # the restored weights are the best epoch's
    assert accuracy[1] == pytest.approx(slow.val_acc)
    # the optimiser state is the best epoch's too: each member's step count is its best epoch's
    assert fitted.optimiser.steps.tolist() == [fast.best_epoch + 1, slow.best_epoch + 1]
    assert fitted.last_params is None  # a member left early: no whole last state


def test_dense_inputs_take_the_same_path_as_sparse_features(toy):
    """Per-member dense inputs (GMNN's p sees label distributions) equal the sparse path on the same matrix."""
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    hyper = batched.hyper_tensors([{"lr": 0.01, "weight_decay": 0.0}] * 2)
    params = batched.MODELS["GCN"].init(batched.Members([0, 1]), x.shape[1], 8, 3)
    sparse_path = batched.predict(batched.MODELS["GCN"], params, graph, hyper, [0, 1])
    dense_path = batched.predict(batched.MODELS["GCN"], params, graph, hyper, [0, 1], inputs=x.expand(2, -1, -1))
    torch.testing.assert_close(sparse_path, dense_path)


def test_soft_targets_that_are_one_hot_give_the_cross_entropy(toy):
    x, edges, y, split = toy
    logits = torch.randn(2, len(y), 3)
    one_hot = F.one_hot(y, 3).float().expand(2, -1, -1)
    torch.testing.assert_close(batched._losses(logits, one_hot), batched._losses(logits, y))


def test_gmnn_runs_its_em_phases_and_reports_p_q_and_the_better(toy):
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    hyper = batched.hyper_tensors([{"lr": 0.01, "weight_decay": 5e-4, "dropout": 0.2, "input_dropout": 0.5}] * 2)
    result = gmnn.gmnn(batched.MODELS["GCN"], graph, y, split, hyper, [0, 1], 8, max_epochs=40, patience=10, loops=2, epochs=5)
    assert len(result.base) == len(result.p) == len(result.q) == len(result.best) == 2
    for p, q, best in zip(result.p, result.q, result.best):
        assert best["val_acc"] == max(p["val_acc"], q["val_acc"]) and 0 <= best["test_acc"] <= 1
    assert result.epochs >= 2 * 2 * 5
    again = gmnn.gmnn(batched.MODELS["GCN"], graph, y, split, hyper, [0, 1], 8, max_epochs=40, patience=10, loops=2, epochs=5)
    assert again.best == result.best  # seeded: the same samples, masks and weights


def test_inputs_after_the_features_read_as_their_dense_concatenation(toy):
    """``AfterFeatures`` (the sparse features' product plus the dense inputs') equals the input layer on
    ``[X ‖ inputs]``, dropout off."""
    x, edges, y, split = toy
    graph = batched.make_graph(x, edges)
    hyper = batched.hyper_tensors([{"lr": 0.01, "weight_decay": 0.0}] * 2)
    labels = F.one_hot(torch.randint(0, 3, (2, len(y)), generator=torch.Generator().manual_seed(1)), 3).float()
    after = batched.AfterFeatures(labels)
    assert batched.input_dim(graph, after) == x.shape[1] + 3
    params = batched.MODELS["GCN"].init(batched.Members([0, 1]), batched.input_dim(graph, after), 8, 3)
    both = batched.predict(batched.MODELS["GCN"], params, graph, hyper, [0, 1], inputs=after)
    dense = batched.predict(batched.MODELS["GCN"], params, graph, hyper, [0, 1], inputs=torch.cat([x.expand(2, -1, -1), labels], -1))
    torch.testing.assert_close(both, dense)


@pytest.mark.parametrize("p_features", [False, True])
def test_gmnns_p_reads_the_features_only_in_the_papers_variant(toy, monkeypatch, p_features):
    """p's inputs in every M-step: each member's label sample (gold one-hot on training nodes), read after the
    node features when ``p_features`` (the GMNN paper's pϕ(y_n | y_NB(n), x_V)); its targets are the sample alone."""
    x, edges, y, split = toy
    seen, train = [], gmnn.train
    monkeypatch.setattr(gmnn, "train", lambda *a, **kw: seen.append(kw) or train(*a, **kw))
    graph = batched.make_graph(x, edges)
    hyper = batched.hyper_tensors([{"lr": 0.01, "weight_decay": 5e-4, "dropout": 0.2, "input_dropout": 0.5}] * 2)
    gmnn.gmnn(batched.MODELS["GCN"], graph, y, split, hyper, [0, 1], 8, max_epochs=10, patience=5, loops=2, epochs=3,
              p_features=p_features)
    p_calls = [kw for kw in seen if kw.get("inputs") is not None]
    assert len(p_calls) == 2  # one M-step per loop
    for kw in p_calls:
        inputs, labels = kw["inputs"], kw["targets"]
        assert isinstance(inputs, batched.AfterFeatures) == p_features
        torch.testing.assert_close(inputs.dense if p_features else inputs, labels)
        assert labels.shape == (2, len(y), 3)
        assert torch.equal(labels[:, split["train"]].argmax(-1), y[split["train"]].expand(2, -1))


def test_fair_eval_runs_of_different_settings_train_as_one_batch(tmp_path, monkeypatch):
    """One model and hidden size on one fold: different learning rates and dropouts share a batch, each
    record keeps its own setting's seeds as members, and a member's numbers match training it alone."""
    from graphrepro.data.registry import DataUnavailable
    from graphrepro.experiments import fair_eval
    from graphrepro.grid import batches, run_batch

    configs = [fair_eval.make_config("cora", 3, kind, "GCN", seed, hidden=16, lr=lr, dropout=0.5, max_epochs=15, patience=5)
               for kind in ("sparse_balanced",) for lr in (0.01, 0.05) for seed in (0, 1)]
    groups = batches(configs, fair_eval.EXPERIMENT, max_members=10)
    assert [len(g) for g in groups] == [4]
    try:
        data = fair_eval.prepare(configs[0])
    except DataUnavailable as err:
        pytest.skip(str(err))
    split = data["split"]
    assert len(split["train"]) == 20 * 7 and not set(split["train"].tolist()) & set(split["test"].tolist())
    together = run_batch(fair_eval.EXPERIMENT, configs, data, "cpu")
    assert [r["members"] for r in together] == [[0, 1], [0, 1], [0, 1], [0, 1]]
    alone = run_batch(fair_eval.EXPERIMENT, [configs[2]], data, "cpu")[0]
    for name in ("val_loss", "test_acc", "best_epoch", "epochs_run"):
        assert together[2]["metrics"][name] == pytest.approx(alone["metrics"][name], abs=1e-6)
    with pytest.raises(ValueError, match="eps"):
        fair_eval.make_config("cora", 0, "dense", "GCN", 0, eps=0.3)
    with pytest.raises(ValueError, match="GMNN"):
        fair_eval.make_config("cora", 0, "dense", "MLP", 0, gmnn_loops=1, gmnn_epochs=2, gmnn_tau=0.1)
    with pytest.raises(ValueError, match="gmnn_p_features"):
        fair_eval.make_config("cora", 0, "dense", "GCN", 0, gmnn_p_features=True)  # not a GMNN run
    with pytest.raises(ValueError, match="gmnn_p_features"):
        fair_eval.make_config("cora", 0, "dense", "GCN", 0, gmnn_loops=1, gmnn_epochs=2, gmnn_tau=0.1, gmnn_p_features=False)
    gmnn = [fair_eval.make_config("cora", 3, "sparse_balanced", "GCN", s, hidden=16, max_epochs=10, patience=5, gmnn_loops=1,
                                  gmnn_epochs=3, gmnn_tau=0.1) for s in (0, 1)]
    assert len(batches(gmnn + configs, fair_eval.EXPERIMENT, 10)) == 2  # GMNN runs batch apart from plain ones
    records = run_batch(fair_eval.EXPERIMENT, gmnn, data, "cpu")
    for r in records:
        m = r["metrics"]
        assert m["test_acc"] in (m["test_p_acc"], m["test_q_acc"]) and m["val_acc"] == max(m["val_p_acc"], m["val_q_acc"])


def test_runs_that_do_not_stack_keep_their_order_and_those_under_way_train_first():
    """One batch per run in the grid's order (seed 0 of each stage before seed 1, not grouped by stage), and
    runs with a checkpoint here ahead of the rest, each part in that order."""
    import dataclasses

    from graphrepro.experiments import lrgb
    from graphrepro.grid import batches, resume_first

    order = [lrgb.make_config("GCN", "lrgb", seed, head_layers=head) for seed in (0, 1) for head in (1, 2)]
    assert batches(order, lrgb.EXPERIMENT, max_members=10) == [[c] for c in order]
    under_way = {(1, 2): 192, (0, 1): 7}  # (seed, head layers) -> epochs checkpointed
    experiment = dataclasses.replace(lrgb.EXPERIMENT, checkpointed=lambda c: under_way.get((c["seed"], c["head_layers"]), 0))
    assert resume_first(order, experiment) == [order[0], order[3], order[1], order[2]]
    assert resume_first(order, dataclasses.replace(lrgb.EXPERIMENT, checkpointed=None)) == order
