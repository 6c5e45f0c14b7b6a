"""Chapter 4 (Peptides-func head ablation): layers against independent computations, the configurations'
parameter counts against LRGB's, the AP metric against scikit-learn, and checkpointed training."""

from __future__ import annotations

import copy
import shutil

import numpy as np
import pandas as pd
import pytest
import torch
from fixtures import random_molecules
from sklearn.metrics import average_precision_score
from torch_geometric.data import Batch, Data

from graphrepro import checkpoints, pages, store
from graphrepro.chapters.lrgb_head import checks, claims, configs, figures, paper, tables
from graphrepro.experiments import lrgb
from graphrepro.metrics import multilabel_ap
from graphrepro.models import lrgb as models
from graphrepro.verdicts import decisions


def test_multilabel_ap_is_sklearns_mean_over_labels_with_both_classes():
    rng = np.random.default_rng(0)
    y = (rng.random((200, 6)) < 0.2).astype(float)
    y[:, 3] = 0  # one label without positives is skipped, as OGB's eval_ap does
    y[rng.random(200) < 0.1, 1] = np.nan  # unlabelled entries are ignored
    s = rng.normal(size=(200, 6)).round(1)  # ties
    expected = []
    for j in range(6):
        known = ~np.isnan(y[:, j])
        if 0 < y[known, j].sum() < known.sum():
            expected.append(average_precision_score(y[known, j], s[known, j]))
    assert multilabel_ap(y, s) == pytest.approx(np.mean(expected), abs=1e-12)
    with pytest.raises(ValueError, match="both classes"):
        multilabel_ap(np.zeros((5, 2)), np.zeros((5, 2)))


def test_gated_gcn_layer_matches_the_formula_node_by_node():
    torch.manual_seed(0)
    layer = models.GatedGCNLayer(8, dropout=0.0, residual=True).eval()
    ei = torch.tensor([[0, 1, 2, 2], [1, 2, 0, 1]])
    x, e = torch.randn(3, 8), torch.randn(4, 8)
    out_x, out_e = layer(x, ei, e)
    with torch.no_grad():
        e_hat = torch.stack([layer.D(x[d]) + layer.E(x[s]) + layer.C(e[k]) for k, (s, d) in enumerate(ei.T.tolist())])
        rows = []
        for i in range(3):
            incoming = [k for k, d in enumerate(ei[1].tolist()) if d == i]
            gates = [torch.sigmoid(e_hat[k]) for k in incoming]
            num = sum((g * layer.B(x[ei[0, k]]) for g, k in zip(gates, incoming)), torch.zeros(8))
            den = sum(gates, torch.zeros(8))
            rows.append(layer.A(x[i]) + num / (den + 1e-6))
        h = torch.relu(layer.norm_x(torch.stack(rows)))
        expected_e = e + torch.relu(layer.norm_e(e_hat))
    torch.testing.assert_close(out_x, x + h)
    torch.testing.assert_close(out_e, expected_e)


def test_gine_layer_is_pygs_gineconv_plus_its_post_activation():
    from torch_geometric.nn import GINEConv

    torch.manual_seed(1)
    layer = models.GINELayer(6, "relu", 0.0, residual=True, tuned=False).eval()
    reference = GINEConv(layer.conv.nn, train_eps=False)
    ei = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])
    x, e = torch.randn(3, 6), torch.randn(4, 6)
    torch.testing.assert_close(layer(x, ei, e)[0], x + torch.relu(reference(x, ei, e)))
    # the message is ReLU(x_j + e_ij), summed, added to x_i, then the network
    by_hand = x + torch.stack([sum((torch.relu(x[s] + e[k]) for k, (s, d) in enumerate(ei.T.tolist()) if d == i), torch.zeros(6))
                               for i in range(3)])
    torch.testing.assert_close(reference(x, ei, e), layer.conv.nn(by_hand))


@pytest.mark.parametrize("model,listed", [("GCN", 508_000), ("GINE", 476_000), ("GatedGCN", 509_000)])
def test_lrgb_configurations_have_the_parameter_counts_lrgb_lists(model, listed):
    count = models.parameter_count(lrgb.build(lrgb.make_config(model, "lrgb", 0)))
    assert abs(count - listed) < 1000
    wider = models.parameter_count(lrgb.build(lrgb.make_config(model, "lrgb", 0, head_layers=2)))
    d = lrgb.ORIGINAL[model]["hidden"]
    assert wider - count == d * d + 2 * d  # one hidden head layer: Linear without bias and BatchNorm


def test_tuned_gcn_has_the_tuned_configs_parameter_count_and_every_tuned_model_fits_the_budget():
    assert models.parameter_count(lrgb.build(lrgb.make_config("GCN", "tuned", 0))) == 485_741
    for model in lrgb.MODELS:
        for rwse in (True, False):
            assert models.parameter_count(lrgb.build(lrgb.make_config(model, "tuned", 0, rwse=rwse))) <= 500_000


def test_cosine_schedule_warms_up_linearly_then_decays_to_zero():
    config = lrgb.make_config("GCN", "tuned", 0)
    factors = [lrgb.lr_factor(t, config) for t in range(250)]
    assert factors[0] == 1e-6 and factors[1] == pytest.approx(0.2) and factors[5] == 1.0
    assert all(a >= b for a, b in zip(factors[5:], factors[6:]))
    assert factors[-1] == pytest.approx(0.5 * (1 + np.cos(np.pi * 244 / 245)))


def test_unknown_fields_and_models_are_refused():
    with pytest.raises(ValueError, match="unknown model"):
        lrgb.make_config("GAT", "tuned", 0)
    with pytest.raises(ValueError, match="unknown fields"):
        lrgb.make_config("GCN", "tuned", 0, heads=3)


def test_random_walk_encoding_is_the_return_probability():
    graph = random_molecules(1)[0]
    (rwse,) = lrgb.random_walk_se([graph], progress=False)
    n = graph.num_nodes
    adj = torch.zeros(n, n)
    adj[graph.edge_index[0], graph.edge_index[1]] = 1
    step = adj / adj.sum(1, keepdim=True)
    power, expected = torch.eye(n), []
    for _ in range(lrgb.RWSE_STEPS):
        power = power @ step
        expected.append(power.diagonal())
    torch.testing.assert_close(rwse, torch.stack(expected, 1))


@pytest.mark.parametrize("model,base,mixed,moved", [("GCN", "lrgb", "float32", False), ("GatedGCN", "tuned", "float32", False),
                                                   ("GatedGCN", "tuned", "bfloat16", False), ("GCN", "lrgb", "float32", True)])
@pytest.mark.slow
def test_an_interrupted_run_continues_from_its_checkpoint_to_the_same_result(tmp_path, monkeypatch, model, base, mixed, moved):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    graphs = random_molecules(48)
    data = {"train": graphs[:32], "val": graphs[32:40], "test": graphs[40:]}
    if base == "tuned":
        for g, pe in zip(graphs, lrgb.random_walk_se(graphs, progress=False)):
            g.rwse = pe
    config = lrgb.make_config(model, base, 3, epochs=4, batch_size=8, warmup_epochs=1.0, precision=mixed)
    straight = lrgb.train_run(data, config, torch.device("cpu"), "straight")
    assert lrgb.train_run(data, config, torch.device("cpu"), "halves", stop_after=2) is None
    assert (lrgb.checkpoint_dir("halves") / "state.pt").exists()
    if moved:  # carried in the run store, then on to a machine whose cache has none
        assert checkpoints.carry(lrgb.checkpoint_dir("halves")) == [checkpoints.carried(lrgb.checkpoint_dir("halves") / "state.pt")]
        shutil.rmtree(lrgb.checkpoint_dir("halves"))
        assert lrgb.epochs_checkpointed("halves") == 2 and not lrgb.checkpoint_dir("halves").exists()  # looking copies nothing
    resumed = lrgb.train_run(data, config, torch.device("cpu"), "halves")
    for name in ("val_ap", "test_ap", "val_loss", "best_epoch", "epochs_run"):
        assert resumed[name] == straight[name]
    curve = resumed["artefacts"]["curve"]  # the first process's two epochs count in the record
    assert straight["resumed_s"] == 0 and resumed["resumed_s"] == pytest.approx((curve["train_s"] + curve["eval_s"])[:2].sum())
    np.testing.assert_array_equal(resumed["artefacts"]["curve"]["val_ap"], straight["artefacts"]["curve"]["val_ap"])
    assert not lrgb.checkpoint_dir("halves").exists()  # a finished run leaves no checkpoint behind, carried or not
    assert not checkpoints.carried(lrgb.checkpoint_dir("halves")).exists()


def test_a_checkpoint_that_does_not_match_its_digest_is_not_loaded(tmp_path):
    folder = tmp_path / "run"
    lrgb.save_checkpoint(folder, {"curve": {"val_ap": [0.5]}})
    assert lrgb.load_checkpoint(folder)["curve"]["val_ap"] == [0.5]
    with open(folder / "state.pt", "ab") as fh:
        fh.write(b"tampered")
    with pytest.warns(checkpoints.TornCheckpoint, match="does not match its pinned sha256"):
        assert lrgb.load_checkpoint(folder) is None


def test_model_scores_a_batch_of_peptides_per_graph():
    graphs = random_molecules(5)
    for g, pe in zip(graphs, lrgb.random_walk_se(graphs, progress=False)):
        g.rwse = pe
    for model in lrgb.MODELS:
        for base in lrgb.BASES:
            net = lrgb.build(lrgb.make_config(model, base, 0)).eval()
            assert net(Batch.from_data_list(graphs)).shape == (5, 10)


class _LocalOnly(torch.nn.Module):
    """Our GatedGCN as a plain ``conv(x, edge_index, edge_attr) -> x`` for PyG's GPSConv."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x, edge_index, edge_attr):
        return self.layer(x, edge_index, edge_attr)[0]


def test_gps_layer_equals_pygs_gpsconv_and_chunked_attention_equals_one_padded_batch():
    from torch_geometric.nn import GPSConv

    torch.manual_seed(2)
    graphs = random_molecules(9)
    batch = Batch.from_data_list(graphs)
    x, e = torch.randn(batch.num_nodes, 8), torch.randn(batch.num_edges, 8)
    ours = models.GPSLayer(8, heads=2, activation="gelu", dropout=0.0, attention_dropout=0.0, chunk=2).eval()
    theirs = GPSConv(8, _LocalOnly(ours.local), heads=2, dropout=0.0, act="gelu", norm="batch_norm").eval()
    theirs.attn, theirs.mlp = ours.attention, ours.ff
    expected = theirs(x, batch.edge_index, batch.batch, edge_attr=e)
    torch.testing.assert_close(ours(x, batch.edge_index, e, batch.batch, batch.num_graphs)[0], expected)
    padded = models.attention_by_size(ours.attention, x, batch.batch, batch.num_graphs, chunk=batch.num_graphs)
    for chunk in (1, 4):
        torch.testing.assert_close(models.attention_by_size(ours.attention, x, batch.batch, batch.num_graphs, chunk), padded)


def test_recomputing_gps_attention_in_the_backward_pass_changes_no_gradient_and_no_random_draw():
    graphs = random_molecules(9)
    batch = Batch.from_data_list(graphs)
    x, e = torch.randn(batch.num_nodes, 8), torch.randn(batch.num_edges, 8)
    results = []
    for recompute in (False, True):
        torch.manual_seed(5)
        layer = models.GPSLayer(8, heads=2, activation="gelu", dropout=0.1, attention_dropout=0.5, chunk=2).train()
        layer.recompute = recompute
        inputs = x.clone().requires_grad_()
        h, edges = layer(inputs, batch.edge_index, e, batch.batch, batch.num_graphs)
        (h.square().sum() + edges.square().sum()).backward()
        results.append((inputs.grad, [p.grad for p in layer.parameters()], torch.get_rng_state()))
    (kept, kept_params, kept_rng), (recomputed, recomputed_params, recomputed_rng) = results
    assert torch.equal(kept, recomputed) and torch.equal(kept_rng, recomputed_rng)  # bit for bit: same masks
    assert all(torch.equal(a, b) for a, b in zip(kept_params, recomputed_params))


def test_laplacian_encoding_holds_the_smallest_eigenpairs_and_pads_small_graphs():
    graphs = random_molecules(6)
    for graph, pe in zip(graphs, lrgb.laplacian_pe(graphs, progress=False)):
        n, k = graph.num_nodes, min(graph.num_nodes, lrgb.LAPPE_FREQUENCIES)
        vecs, vals = pe[:, : lrgb.LAPPE_FREQUENCIES], pe[:, lrgb.LAPPE_FREQUENCIES :]
        lap = torch.zeros(n, n)
        lap[graph.edge_index[0], graph.edge_index[1]] = -1.0
        lap += torch.diag(-lap.sum(1))
        torch.testing.assert_close(lap @ vecs[:, :k], vecs[:, :k] * vals[0, :k], atol=1e-5, rtol=1e-5)
        assert vals[0, 0].abs() < 1e-5  # a connected graph's smallest eigenvalue is 0
        assert torch.isnan(pe[:, k : lrgb.LAPPE_FREQUENCIES]).all()  # fewer nodes than frequencies: padded


def test_gps_fits_the_budget_and_runs_only_tuned():
    count = models.parameter_count(lrgb.build(lrgb.make_config("GPS", "tuned", 0)))
    assert count <= 500_000
    with pytest.raises(ValueError, match="tuned"):
        lrgb.make_config("GPS", "lrgb", 0)
    graphs = random_molecules(4)
    for g, pe in zip(graphs, lrgb.laplacian_pe(graphs, progress=False)):
        g.eigvecs, g.eigvals = pe[:, :lrgb.LAPPE_FREQUENCIES], pe[:, lrgb.LAPPE_FREQUENCIES:]
    net = lrgb.build(lrgb.make_config("GPS", "tuned", 0))
    assert net(Batch.from_data_list(graphs)).shape == (4, 10)


def test_gcn_layer_equals_pygs_gcnconv_in_values_and_gradients():
    from torch_geometric.nn import GCNConv

    torch.manual_seed(3)
    batch = Batch.from_data_list(random_molecules(6))
    layer = models.GCNLayer(8, "relu", 0.0, residual=False, batchnorm=False)
    torch.nn.init.normal_(layer.conv.bias)
    reference = GCNConv(8, 8)
    reference.load_state_dict(layer.conv.state_dict())
    x1 = torch.randn(batch.num_nodes, 8, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_(True)
    ours = layer(x1, models.gcn_adjacency(batch.edge_index, batch.num_nodes), None)[0]
    theirs = torch.relu(reference(x2, batch.edge_index))
    torch.testing.assert_close(ours, theirs)
    ours.square().sum().backward()
    theirs.square().sum().backward()
    torch.testing.assert_close(x1.grad, x2.grad)
    torch.testing.assert_close(layer.conv.lin.weight.grad, reference.lin.weight.grad)


def test_findings_quote_the_tables_the_page_shows():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN", "GINE"])
    means = {("GCN", "LRGB, linear head"): 50.0, ("GCN", "LRGB, 2-layer head"): 53.5, ("GCN", "tuned"): 60.0,
             ("GCN", "tuned without RWSE"): 58.0, ("GINE", "LRGB, linear head"): 45.0, ("GINE", "LRGB, 2-layer head"): 44.0,
             ("GINE", "tuned"): 61.0, ("GPS", "tuned"): 59.0, ("GPS", "tuned, linear head"): 59.5}
    long = pd.DataFrame([{"model": m, "stage": s, "mean": v} for (m, s), v in means.items()])
    order = pd.DataFrame({"settled": ["yes", "no: a | b", "not decided (8 of 500 epochs); the same order"]},
                         index=pd.Index(["GCN", "GINE", "GatedGCN"], name="model"))
    found = claims.finding_numbers(tables.Tables(params, pd.DataFrame(), main=long, order=order))
    assert found["lrgb_head_head_gains"] == "GCN +3.5, GINE -1.0"
    assert found["lrgb_head_tuned_gains"] == "GCN +10.0, GINE +16.0"
    assert found["lrgb_head_rwse_gains"] == "GCN +2.0"  # GINE has no run without RWSE
    assert found["lrgb_head_tuned_vs_head"] == "GCN +6.5, GINE +17.0"
    assert found["lrgb_head_gps_head"] == "-0.5"
    assert found["lrgb_head_best_vs_gps"] == "GINE 61.0 against GPS 59.0"
    assert found["lrgb_head_settled"] == "1 of 2 model(s) trained for the papers' epochs"  # GatedGCN's 8 epochs decide nothing
    short = claims.finding_numbers(tables.Tables(params, pd.DataFrame(), main=long, order=order.iloc[2:]))["lrgb_head_settled"]
    assert short.startswith("no model: every budget so far is shorter")
    nothing = claims.finding_numbers(tables.Tables(params, pd.DataFrame(), main=long.iloc[:0], order=order.iloc[:0]))
    assert set(nothing.values()) == {"not run yet"}


def test_the_cost_table_gives_each_stages_largest_recorded_peak_memory():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], gps=False)
    runs = pd.DataFrame([{**configs.config(params, "GCN", stage, seed), "peak_rss_mb": peak} for stage, seed, peak in
                         (("LRGB, linear head", 0, 1000.0), ("LRGB, linear head", 1, 2000.0), ("LRGB, 2-layer head", 0, 9000.0))])
    curve = pd.DataFrame({"model": "GCN", "stage": ["LRGB, linear head", "LRGB, 2-layer head"], "train graphs/s": 100.0,
                          "eval graphs/s": 400.0, "train s": 1.0})
    table = tables.throughput_table(curve, params, runs)
    assert table.loc[("GCN", "LRGB, linear head"), "peak MB"] == 2000.0
    assert table.loc[("GCN", "LRGB, 2-layer head"), "peak MB"] == 9000.0
    # 10,873 training graphs at 100/s and 4,662 evaluated at 400/s: 120.4 s an epoch
    assert table.loc[("GCN", "LRGB, linear head"), "s / epoch"] == pytest.approx(120.4, abs=0.05)
    assert "peak MB" not in tables.throughput_table(curve, params).columns


def test_self_attention_equals_torchs_and_its_dropout_keeps_the_expected_output():
    """Without dropout it is torch's MultiheadAttention; with dropout 0.5 on the weights, the mean over many
    draws approaches the undropped output (inverted dropout), padded keys stay unattended, and a draw differs."""
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True)
    dense, mask = torch.randn(3, 5, 8), torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 0, 0, 0]], dtype=torch.bool)
    expected = attention.eval()(dense, dense, dense, key_padding_mask=~mask, need_weights=False)[0]
    torch.testing.assert_close(models.self_attention(attention, dense, mask), expected)
    attention.train()
    draws = torch.stack([models.self_attention(attention, dense, mask) for _ in range(4000)])
    torch.testing.assert_close(draws.mean(0), expected, atol=0.03, rtol=0.0)
    assert not torch.equal(draws[0], draws[1])
    padded = dense.clone()
    padded[1, 3:] = 1e3  # what padded keys hold must not reach any query
    torch.manual_seed(1)
    first = models.self_attention(attention, dense, mask)
    torch.manual_seed(1)
    torch.testing.assert_close(models.self_attention(attention, padded, mask)[1, :3], first[1, :3])


def test_a_runs_recorded_time_is_at_least_its_curves_seconds(isolated_store):
    """Records written before resumed runs counted their earlier processes hold only the last one's time;
    the curve holds every epoch's, and the page's cost reads the larger."""
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], gps=False)
    for stage, wall_s in (("LRGB, linear head", 100.0), ("LRGB, 2-layer head", 500.0)):  # the first resumed: 3 × (40 + 10) s
        c = configs.config(params, "GCN", stage, 0)
        curve = {"train_s": np.full(3, 40.0), "eval_s": np.full(3, 10.0), "val_ap": np.zeros(3)}
        digest = store.write_artefact(paper.CHAPTER, configs.key(c), "curve", curve)
        store.write_record(paper.CHAPTER, {"key": configs.key(c), "experiment": lrgb.EXPERIMENT.name, "version": lrgb.EXPERIMENT.version,
                                         "config": c, "metrics": {"test_ap": 0.3}, "wall_s": wall_s, "artefacts": {"curve": digest}})
    _, runs = configs.chapter_records(params)
    assert sorted(runs.wall_s) == [150.0, 500.0]


HAND_MADE_AP = {("GCN", "LRGB, linear head"): (0.500, 0.520), ("GCN", "LRGB, 2-layer head"): (0.530, 0.550),
               ("GCN", "tuned"): (0.600, 0.590), ("GINE", "LRGB, linear head"): (0.450, 0.450),
               ("GINE", "LRGB, 2-layer head"): (0.455, 0.455), ("GINE", "tuned"): (0.585, 0.585),
               ("GPS", "tuned"): (0.600, 0.600), ("GPS", "tuned, linear head"): (0.592, 0.592)}


def hand_made_runs(params: dict, cells: dict = HAND_MADE_AP) -> pd.DataFrame:
    """Records of ``cells`` (test AP per seed) under ``params``, as the chapter's tables read them."""
    return pd.DataFrame([{**(c := configs.config(params, model, stage, seed)), "key": configs.key(c), "test_ap": ap[seed]}
                         for (model, stage), ap in cells.items() for seed in (0, 1)])


def decided(params: dict, runs: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Each claim's verdict in words and its evidence, by claim id."""
    return {d.claim.id: (d.words, d.evidence) for d in decisions(claims.claims(tables.Tables(params, runs)))}


def test_the_order_of_the_stages_is_judged_over_the_last_fifth_of_the_papers_budget():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"])
    rows = [{"model": "GCN", "stage": stage, "seed": 0, "epochs": epochs, "epoch": e, "val AP": ap(e)}
            for epochs in (2, 500) for stage, ap in (("LRGB, linear head", lambda e: 40.0), ("LRGB, 2-layer head", lambda e: 30.0 + e / 10))
            for e in range(1, epochs + 1)]
    curve = pd.DataFrame(rows)
    short = tables.order_table(curve[curve.epochs == 2], params)
    assert short.loc["GCN", "settled"] == "not decided (2 of 500 epochs); the same order"
    full = tables.order_table(curve, params)  # the head overtakes at epoch 101, before the last 100 epochs
    assert full.loc["GCN", "epochs"] == "401–500" and full.loc["GCN", "settled"] == "yes"
    assert full.loc["GCN", "order at the last epoch"] == "LRGB, 2-layer head > LRGB, linear head"
    late = curve.assign(**{"val AP": np.where((curve.stage == "LRGB, linear head") & (curve.epoch > 450), 99.0, curve["val AP"])})
    assert tables.order_table(late, params).loc["GCN", "settled"].startswith("no: ")


def test_claims_are_decided_by_the_interval_of_their_paired_seed_differences():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN", "GINE"], seeds=2, tolerance=1.0, epochs=0)
    runs = hand_made_runs(params)
    verdicts = decided(params, runs)
    # GCN's head gains 3.0 points on both seeds: the interval [3, 3] lies above the tolerance
    assert verdicts["gcn-head-gain"] == ("holds", "2-layer − linear head +3.0 [+3.0, +3.0] over 2 seeds; 54.0 vs 51.0 (500 epochs)")
    # GINE's 0.5 on both seeds lies below it: no improvement
    assert verdicts["gine-head-gain"][0] == "does not hold"
    # tuned GCN − GPS is 0.0 and -1.0: the 95% interval at 2 seeds, -0.5 ± 12.71 × 0.5, crosses -1
    assert verdicts["gcn-tuned-vs-gps"] == ("not decided (inside the noise)",
                                            "tuned − GPS -0.5 [-6.9, +5.9] over 2 seeds; 59.5 vs 60.0; the paper's +3.3 (250 epochs)")
    # tuned GINE is 1.5 below GPS on both seeds, where the paper has it 0.9 above
    assert verdicts["gine-tuned-vs-gps"] == ("does not hold", "tuned − GPS -1.5 [-1.5, -1.5] over 2 seeds; 58.5 vs 60.0; "
                                                              "below the paper's +0.9 (250 epochs)")
    assert verdicts["gps-head-insensitive"][0] == "holds"  # +0.8 on both seeds, within ±1
    without_linear_gps = runs[~runs.key.isin([configs.key(configs.config(params, "GPS", "tuned, linear head", s)) for s in (0, 1)])]
    assert decided(params, without_linear_gps)["gps-head-insensitive"][0] == "not run"  # a missing cell decides nothing
    one_seed = runs[runs.key != configs.key(configs.config(params, "GINE", "LRGB, 2-layer head", 1))]
    assert decided(params, one_seed)["gine-head-gain"] == (  # one pair has no spread to put an interval on
        "not decided (1 of 2 seed(s) at 500 epochs)", "2-layer − linear head +0.5 on one seed; 45.5 vs 45.0")


def test_a_claim_on_fewer_epochs_than_the_papers_is_not_decided_until_their_budget_is_recorded():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN", "GINE"], seeds=2, tolerance=1.0)  # 2 epochs
    short = hand_made_runs(params)
    verdicts = decided(params, short)
    assert {v for v, _ in verdicts.values()} == {"not decided (2 of 500 epochs)", "not decided (2 of 250 epochs)"}
    assert verdicts["gine-tuned-vs-gps"] == ("not decided (2 of 250 epochs)", "tuned − GPS -1.5 [-1.5, -1.5] over 2 seeds; "
                                             "58.5 vs 60.0; below the paper's +0.9; at 2 epochs it would not hold")
    # GCN's head cells at the papers' 500 epochs (where the head loses) decide that claim, and only that one
    full = hand_made_runs(configs.full_params(params), {("GCN", "LRGB, linear head"): (0.6, 0.6), ("GCN", "LRGB, 2-layer head"): (0.58, 0.58)})
    verdicts = decided(params, pd.concat([short, full]))
    assert verdicts["gcn-head-gain"] == ("does not hold", "2-layer − linear head -2.0 [-2.0, -2.0] over 2 seeds; 58.0 vs 60.0 (500 epochs)")
    assert verdicts["gcn-tuned-vs-gps"][0] == "not decided (2 of 250 epochs)"
    # with one of the two planned seeds at 500 epochs in a cell, that claim is not decided either
    one_seed = full[full.key != configs.key(configs.config(configs.full_params(params), "GCN", "LRGB, 2-layer head", 1))]
    assert decided(params, pd.concat([short, one_seed]))["gcn-head-gain"] == (
        "not decided (1 of 2 seed(s) at 500 epochs)", "2-layer − linear head -2.0 on one seed; 58.0 vs 60.0")
    table = tables.budget_table(pd.concat([short, full]), params)
    assert table.loc[("GCN", "LRGB, 2-layer head"), "500/250"] == "58.0 ± 0.0"
    assert table.loc[("GCN", "LRGB, 2-layer head"), "2 epochs"] == "54.0 ± 1.4"
    assert table.loc[("GCN", "tuned"), "recorded"] == "0/2"


def test_the_budget_table_marks_a_single_run_and_only_the_runs_that_stopped_early():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], seeds=2)
    full = hand_made_runs(configs.full_params(params), {("GCN", "LRGB, linear head"): (0.6, 0.6), ("GCN", "LRGB, 2-layer head"): (0.62, 0.6)})
    # one seed each: all 500 epochs, and a stop at 420, trained for two hours and one
    full = full[full.seed == 0].assign(epochs_run=[500, 420], wall_s=[7200.0, 3600.0], device="cpu")
    longer = hand_made_runs({**params, "epochs": params["long_epochs"]}, {("GCN", "LRGB, linear head"): (0.40, 0.44)})
    mixed = hand_made_runs({**params, "epochs": params["long_epochs"], "precision": "bfloat16"}, {("GCN", "LRGB, linear head"): (0.1, 0.1)})
    table = tables.budget_table(pd.concat([hand_made_runs(params), full, longer, mixed]), params)
    # the GCN pair at the longer epochs, in the profile's precision (fp32) only; no other cell is trained that long
    assert table.loc[("GCN", "LRGB, linear head"), f"{params['long_epochs']} epochs"] == "42.0 ± 2.8"
    assert table.loc[("GCN", "LRGB, 2-layer head"), f"{params['long_epochs']} epochs"] == "–"
    assert table.loc[("GCN", "tuned"), f"{params['long_epochs']} epochs"] == "–"
    assert table.loc[("GCN", "LRGB, linear head"), "500/250"] == "60.0 (one run)"
    assert table.loc[("GCN", "LRGB, linear head"), "recorded"] == "1/2"
    assert table.loc[("GCN", "LRGB, 2-layer head"), "recorded"] == "1/2 (stopped at 420)"
    assert table.loc[("GCN", "LRGB, linear head"), "2 epochs"] == "51.0 ± 1.4"
    # the hours each cell's papers'-budget records took, and all of them in words
    assert table.hours.to_dict() == {("GCN", "LRGB, linear head"): "2.0", ("GCN", "LRGB, 2-layer head"): "1.0", ("GCN", "tuned"): "–",
                                   ("GPS", "tuned"): "–"}
    assert tables.hours_note(full) == "3.0 hours (2 run(s) on cpu)"
    assert tables.hours_note(full.iloc[:0]) == "none recorded yet"


@pytest.mark.parametrize("epochs,scale", [(8, "linear"), (500, "log")])
def test_the_curve_figure_puts_epochs_on_a_log_scale_only_for_long_runs(epochs, scale):
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"])
    curve = pd.DataFrame({"model": "GCN", "stage": "LRGB, linear head", "seed": 0, "epochs": epochs,
                          "epoch": np.arange(1, epochs + 1), "val AP": np.linspace(20, 60, epochs)})
    ax = figures.curve_figure(curve, params).axes[0]
    assert ax.get_xscale() == scale
    assert (ax.get_xlabel() == "epoch (log scale)") == (scale == "log")
    if scale == "log":
        assert [int(t) for t in ax.get_xticks()] == [1, 2, 5, 10, 30, 100, 500]


@pytest.mark.parametrize("model,base,releases", [("GCN", "lrgb", 1), ("GPS", "tuned", 12)])
@pytest.mark.slow
def test_training_returns_freed_heap_pages_after_every_gps_batch_and_every_tenth_otherwise(
        tmp_path, monkeypatch, model, base, releases):
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    config = lrgb.make_config(model, base, 0, epochs=1, batch_size=2, warmup_epochs=0.5)
    graphs = with_encodings(random_molecules(30), config)
    calls = []
    monkeypatch.setattr(lrgb, "release_freed_memory", lambda: calls.append(1) or True)
    lrgb.train_run({"train": graphs[:24], "val": graphs[24:27], "test": graphs[27:]}, config, torch.device("cpu"), "cadence")
    assert len(calls) == releases  # 12 training batches: GPS after each, GCN after the tenth


def with_encodings(graphs: list[Data], config: dict) -> list[Data]:
    """``graphs`` with the positional encodings ``config`` uses (LapPE's eigenpairs, RWSE), as the loader adds them."""
    for g, pe in zip(graphs, lrgb.laplacian_pe(graphs, progress=False) if config.get("lappe") else []):
        g.eigvecs, g.eigvals = pe[:, :lrgb.LAPPE_FREQUENCIES], pe[:, lrgb.LAPPE_FREQUENCIES:]
    for g, pe in zip(graphs, lrgb.random_walk_se(graphs, progress=False) if config["rwse"] else []):
        g.rwse = pe
    return graphs


def test_the_cpus_bf16_hardware_is_read_from_its_flags(monkeypatch):
    """(Refusing bf16 without it, for every chapter: tests/test_precision.py.)"""
    from graphrepro import precision

    monkeypatch.setattr(precision, "cpu_flags", lambda: {"avx2", "avx512f"})
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert precision.cpu_bf16() == "none" and "no bfloat16 hardware" in precision.unavailable("bfloat16")
    monkeypatch.setattr(precision, "cpu_flags", lambda: {"avx512f", "avx512_bf16"})
    assert precision.cpu_bf16() == "avx512_bf16" and precision.unavailable("bfloat16") is None
    monkeypatch.setattr(precision, "cpu_flags", lambda: {"amx_tile", "amx_bf16", "avx512_bf16"})
    assert precision.cpu_bf16() == "amx"


def test_float32_keeps_todays_keys_and_bfloat16_is_a_run_of_its_own():
    params = pages.resolve("lrgb-head", "standard")
    assert params["precision"] == "float32"
    today = lrgb.make_config("GCN", "lrgb", 0, train_graphs=0, eval_graphs=0, epochs=8)
    assert configs.key(configs.config(params, "GCN", "LRGB, linear head", 0)) == configs.key(today)
    mixed = configs.config({**params, "precision": "bfloat16"}, "GCN", "LRGB, linear head", 0)
    assert mixed["precision"] == "bfloat16" and configs.key(mixed) != configs.key(today)


@pytest.mark.parametrize("model,base", [("GCN", "tuned"), ("GINE", "tuned"), ("GatedGCN", "tuned"), ("GPS", "tuned"), ("GCN", "lrgb")])
def test_a_bfloat16_forward_and_backward_stays_near_float32(model, base):
    """Mixed precision gives the scores of fp32 to bf16's resolution and finite fp32 gradients; fp32 under the
    policy is today's forward bit for bit."""
    from graphrepro import precision

    config = lrgb.make_config(model, base, 0)
    batch = Batch.from_data_list(with_encodings(random_molecules(12), config))
    torch.manual_seed(0)
    net = lrgb.build(config).eval()
    with torch.no_grad():
        exact = net(batch)
        with precision.autocast("float32", torch.device("cpu")):
            assert torch.equal(net(batch), exact)
        with precision.autocast("bfloat16", torch.device("cpu")):
            mixed = net(batch).float()
    assert (mixed - exact).abs().max() <= 0.05 * exact.abs().max() + 0.05
    net.train()
    with precision.autocast("bfloat16", torch.device("cpu")):
        logits = net(batch)
    torch.nn.functional.binary_cross_entropy_with_logits(logits.float(), batch.y).backward()
    grads = [p.grad for p in net.parameters() if p.grad is not None]
    assert grads and all(g.dtype == torch.float32 and torch.isfinite(g).all() for g in grads)


def test_the_bf16_fidelity_check_compares_both_precisions_against_the_larger_of_spread_and_tolerance():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], tolerance=1.0)  # the longer pair: 3 epochs
    fp32 = hand_made_runs({**params, "epochs": params["long_epochs"]},
                          {("GCN", "LRGB, linear head"): (0.40, 0.44), ("GCN", "LRGB, 2-layer head"): (0.58, 0.58)})
    planned = checks.fidelity_configs(params)
    assert len(planned) == 8 and {c.get("precision", "float32") for c in planned} == {"float32", "bfloat16"}
    assert {configs.key(c) for c in planned} >= set(fp32.key)  # the fp32 half is the longer pair's own runs
    mixed = hand_made_runs({**params, "epochs": params["long_epochs"], "precision": "bfloat16"},
                           {("GCN", "LRGB, linear head"): (0.43, 0.45), ("GCN", "LRGB, 2-layer head"): (0.56, 0.57)})
    table = tables.fidelity_table(pd.concat([fp32, mixed]), params)
    # linear head: +2.0 within fp32's spread of 2.8; 2-layer head: -1.5 beyond the 1-point tolerance (no spread)
    assert table.loc["LRGB, linear head", ["bf16 − fp32", "allowed", "within"]].tolist() == ["+2.0", "±2.8", "yes"]
    assert table.loc["LRGB, 2-layer head", ["bf16 − fp32", "allowed", "within"]].tolist() == ["-1.5", "±1.0", "no"]
    partial = tables.fidelity_table(pd.concat([fp32, mixed.iloc[:1]]), params)
    assert partial.loc["LRGB, 2-layer head", "within"] == "not decided (2 + 0 of 4 runs)"


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_from_random_bits_keeps_each_element_with_the_stated_probability_and_its_mean(p):
    """Every draw keeps elements at F.dropout's rate (bits: p rounded to 2^-15), in each of a 64-bit word's four
    slots, independently of the neighbouring slot, and leaves the mean where it was."""
    torch.manual_seed(0)
    n = 400_000
    keep = models.keep_mask((n,), p, torch.device("cpu")).float()
    rate = 1.0 - round(p * 2**models.BITS) / 2**models.BITS
    sigma = (rate * (1 - rate) / (n / 4)) ** 0.5
    slots = keep.view(-1, 4).mean(0)
    assert ((slots - rate).abs() < 5 * sigma).all()  # each slot of the word, not only their average
    pairs = keep.view(-1, 2)
    assert abs(float((pairs[:, 0] * pairs[:, 1]).mean()) - rate**2) < 5 * sigma
    ones = torch.ones(n)
    for draw in ("bernoulli", "uniform", "bits"):
        out = models.dropout(ones, p, True, draw)
        values = out.unique()
        assert values[0] == 0.0 and len(values) == 2 and float(values[1]) == pytest.approx(1 / (1 - p), rel=1e-3)
        assert abs(float(out.mean()) - 1.0) < 5 * (p / (1 - p) / n) ** 0.5
    assert torch.equal(models.dropout(ones, p, False, "bits"), ones)


def test_todays_dropout_draws_are_kept_bit_for_bit():
    """The reference step's dropout modules draw exactly as nn.Dropout (bernoulli) and GPS's uniform draw did."""
    x = torch.randn(64, 32)
    torch.manual_seed(3)
    expected = torch.nn.Dropout(0.1)(x)
    torch.manual_seed(3)
    assert torch.equal(models.Dropout(0.1, models.draw(False))(x), expected)
    torch.manual_seed(3)
    uniform = x * (torch.rand_like(x) >= 0.1) / 0.9
    torch.manual_seed(3)
    assert torch.equal(models.Dropout(0.1, models.draw(False, "uniform"))(x), uniform)
    assert models.draw(True) == models.draw(True, "uniform") == "bits"


@pytest.mark.parametrize("model", ["GatedGCN", "GPS"])
@pytest.mark.slow
def test_the_fast_step_computes_todays_function_without_dropout(model):
    """With dropout off, the fast step (index_select gathers, index_add_ sums) gives today's scores and
    gradients in fp32, to float rounding."""
    outs = {}
    for step in lrgb.STEPS:
        config = lrgb.make_config(model, "tuned", 0, dropout=0.0, step=step,
                                  **({"attention_dropout": 0.0} if model == "GPS" else {}))
        batch = Batch.from_data_list(with_encodings(random_molecules(10), config))
        torch.manual_seed(0)
        net = lrgb.build(config).train()
        logits = net(batch)
        logits.sum().backward()
        outs[step] = (logits.detach(), [p.grad for p in net.parameters()])
    (ref, ref_grads), (fast, fast_grads) = outs["reference"], outs["fast"]
    assert torch.allclose(fast, ref, atol=1e-5)
    assert [f is None for f in fast_grads] == [r is None for r in ref_grads]
    assert all(torch.allclose(f, r, atol=1e-5, rtol=1e-4) for f, r in zip(fast_grads, ref_grads) if r is not None)
    assert "step" not in lrgb.make_config(model, "tuned", 0, step="reference")
    assert "step" not in lrgb.make_config(model, "tuned", 0, step="fast", precision="bfloat16")  # implied
    with pytest.raises(ValueError, match="unknown step"):
        lrgb.make_config(model, "tuned", 0, step="faster")


def test_onednn_linear_is_nn_linear_to_rounding_and_steps_aside_under_autocast():
    """Forward and every gradient equal nn.Linear's to fp32 rounding (2-D and 3-D inputs, with and without
    bias), the same call gives the same bits twice, and under bf16 autocast it is nn.Linear's bf16 product."""
    from graphrepro.models import onednn

    torch.manual_seed(0)
    for bias, shape in ((True, (300, 95)), (False, (4, 75, 95))):
        plain = torch.nn.Linear(95, 40, bias=bias)
        fast = onednn.use_onednn(torch.nn.Sequential(copy.deepcopy(plain)))[0]
        assert type(fast) is onednn.OneDNNLinear and torch.equal(fast.weight, plain.weight)
        outs = []
        for layer in (plain, fast, fast):
            x = torch.randn(shape, generator=torch.Generator().manual_seed(1), requires_grad=True)
            y = layer(x)
            (y * torch.linspace(-1, 1, y.numel()).view(y.shape)).sum().backward()
            outs.append([y.detach(), x.grad] + [p.grad.clone() for p in layer.parameters()])
            layer.zero_grad()
        assert all(torch.allclose(f, r, rtol=1e-5, atol=1e-5) for f, r in zip(outs[1], outs[0]))
        assert all(torch.equal(a, b) for a, b in zip(outs[1], outs[2]))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.equal(fast(torch.ones(3, 95)), plain(torch.ones(3, 95)))
        assert fast(torch.ones(3, 95)).dtype == torch.bfloat16


def test_onednn_products_are_keyed_and_refused_where_torch_has_no_onednn(monkeypatch):
    """``matmul`` torch's own stays out of the key (today's records keep theirs), ``onednn`` is in it, another is
    refused; a torch without oneDNN refuses to build such a model, with the reason."""
    assert lrgb.make_config("GatedGCN", "tuned", 0, matmul="aten") == lrgb.make_config("GatedGCN", "tuned", 0)
    assert lrgb.make_config("GatedGCN", "tuned", 0, matmul="onednn")["matmul"] == "onednn"
    with pytest.raises(ValueError, match="unknown matmul"):
        lrgb.make_config("GatedGCN", "tuned", 0, matmul="mkl")
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no oneDNN"):
        lrgb.build(lrgb.make_config("GatedGCN", "tuned", 0, matmul="onednn"))


@pytest.fixture(scope="module")
def peptides(tmp_path_factory):
    """Real Peptides-func, processed once for the module from an empty cache (the tests skip where the data cannot be had)."""
    from graphrepro.data.registry import DataUnavailable

    patch = pytest.MonkeyPatch()
    patch.setenv("GRAPHREPRO_DATA", str(tmp_path_factory.mktemp("cache")))
    try:
        return lrgb.lrgb_data.load_peptides_func(progress=False)
    except DataUnavailable as err:
        pytest.skip(str(err))
    finally:
        patch.undo()


@pytest.mark.slow
def test_real_peptides_func_matches_the_lrgb_paper(peptides):
    """The fixture processed all 15,535 molecules into an empty cache, where the loader asserts the paper's statistics."""
    assert [len(peptides[k]) for k in lrgb.lrgb_data.SPLITS] == list(lrgb.lrgb_data.STATS.split)
    assert sum(g.num_nodes for part in peptides.values() for g in part) == lrgb.lrgb_data.STATS.nodes
    assert peptides["train"][0].x.shape[1] == 9 and peptides["train"][0].y.shape == (1, 10)


@pytest.mark.parametrize("model,base", [("GCN", "lrgb"), ("GCN", "tuned"), ("GINE", "tuned"), ("GatedGCN", "tuned"), ("GPS", "tuned")])
@pytest.mark.slow
def test_the_bf16_step_stays_near_todays_fp32_step_on_real_peptides(model, base, peptides, monkeypatch):
    """On a batch of 48 real Peptides-func molecules, with dropout off (the draws differ by design): bf16's fast
    step gives fp32's scores within 5% of their range, and the whole gradient points the way fp32's does
    (cosine above 0.99) within 10% of its norm."""
    from graphrepro import precision

    monkeypatch.setattr(lrgb.lrgb_data, "load_peptides_func", lambda progress=False: peptides)
    runs = {}
    for mixed in precision.CHOICES:
        config = lrgb.make_config(model, base, 0, train_graphs=48, eval_graphs=8, dropout=0.0, precision=mixed,
                                  **({"attention_dropout": 0.0} if model == "GPS" else {}))
        batch = Batch.from_data_list(lrgb.prepare(config)["train"])
        torch.manual_seed(0)
        net = lrgb.build(config).train()
        with precision.autocast(mixed, torch.device("cpu")):
            logits = net(batch).float()
        torch.nn.functional.binary_cross_entropy_with_logits(logits, batch.y).backward()
        runs[mixed] = (logits.detach(), torch.cat([p.grad.flatten() for p in net.parameters() if p.grad is not None]))
    (exact, exact_grad), (mixed, mixed_grad) = runs["float32"], runs["bfloat16"]
    assert (mixed - exact).abs().max() <= 0.05 * (exact.max() - exact.min())
    assert torch.nn.functional.cosine_similarity(mixed_grad, exact_grad, dim=0) > 0.99
    assert abs(float(mixed_grad.norm() / exact_grad.norm()) - 1.0) < 0.1


@pytest.mark.parametrize("model", ["GINE", "GatedGCN", "GPS"])
@pytest.mark.slow
def test_onednn_products_give_the_fast_steps_scores_and_gradients_on_real_peptides(model, peptides, monkeypatch):
    """On a batch of 48 real Peptides-func molecules, dropout on (its draws do not depend on the products): the
    fast fp32 step with oneDNN's products gives torch's scores and gradients to fp32 rounding."""
    monkeypatch.setattr(lrgb.lrgb_data, "load_peptides_func", lambda progress=False: peptides)
    runs = {}
    for matmul in lrgb.MATMULS:
        config = lrgb.make_config(model, "tuned", 0, train_graphs=48, eval_graphs=8, step="fast", matmul=matmul)
        batch = Batch.from_data_list(lrgb.prepare(config)["train"])
        torch.manual_seed(0)
        net = lrgb.build(config).train()
        logits = net(batch)
        torch.nn.functional.binary_cross_entropy_with_logits(logits, batch.y).backward()
        runs[matmul] = (logits.detach(), torch.cat([p.grad.flatten() for p in net.parameters() if p.grad is not None]))
    (ref, ref_grad), (fast, fast_grad) = runs["aten"], runs["onednn"]
    assert not torch.equal(fast_grad, ref_grad)  # the products did change: rounding differs
    assert torch.allclose(fast, ref, rtol=1e-4, atol=1e-5)
    assert torch.allclose(fast_grad, ref_grad, rtol=1e-3, atol=1e-6 * float(ref_grad.abs().max()))


def test_the_sparse_product_of_fp32_operands_runs_in_fp32_under_autocast():
    """torch has no bf16 CSR kernel on CPU: inside autocast an fp32 product must not be cast down (it would fail)."""
    from graphrepro.sparse import block_sum, csr_structure

    edges = torch.tensor([[0, 1, 2, 1], [1, 0, 1, 2]])
    order = torch.argsort(edges[1] * 3 + edges[0])
    csr, values, x = csr_structure(edges[:, order], 3), torch.rand(1, 4), torch.randn(1, 3, 5)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = block_sum(values, x, csr)
    assert inside.dtype == torch.float32 and torch.equal(inside, block_sum(values, x, csr))


@pytest.mark.slow
def test_a_plateau_run_with_the_stopping_rule_ends_at_the_minimum_rate_once_val_ap_rests(tmp_path, monkeypatch):
    """stop_at_min_lr: the run stops at the first epoch whose rate is at the minimum and whose best validation AP
    lies that many epochs back; until then it is the run without the rule, epoch for epoch, and it resumes."""
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path))
    graphs = random_molecules(48)
    data = {"train": graphs[:32], "val": graphs[32:40], "test": graphs[40:]}
    full = lrgb.make_config("GCN", "lrgb", 0, epochs=30, batch_size=8, lr=1e-5)  # at the minimum rate from the start
    ruled = {**full, "stop_at_min_lr": 3}
    assert lrgb.EXPERIMENT.key(ruled) != lrgb.EXPERIMENT.key(full)
    without = lrgb.train_run(data, full, torch.device("cpu"), "full")
    stopped = lrgb.train_run(data, ruled, torch.device("cpu"), "ruled")
    n, curve = stopped["epochs_run"], stopped["artefacts"]["curve"]
    assert "stopped_early" not in without and without["epochs_run"] == 30
    assert stopped["stopped_early"] and n < 30 and n - 1 - stopped["best_epoch"] == 3
    assert all(k - int(np.argmax(curve["val_ap"][: k + 1])) < 3 for k in range(n - 1))  # no earlier epoch qualified
    np.testing.assert_array_equal(curve["val_ap"], without["artefacts"]["curve"]["val_ap"][:n])
    lrgb.train_run(data, ruled, torch.device("cpu"), "halves", stop_after=n - 2)
    assert lrgb.train_run(data, ruled, torch.device("cpu"), "halves")["epochs_run"] == n
    with pytest.raises(ValueError, match="plateau"):
        lrgb.make_config("GCN", "tuned", 0, stop_at_min_lr=20)


def write_first_full(config: dict, best: int) -> None:
    """A record of ``FIRST_FULL`` at 500 epochs whose best validation epoch is ``best`` and whose rate reaches the
    minimum at epoch 60."""
    curve = {"val_ap": np.where(np.arange(500) == best, 0.6, 0.5), "lr": np.where(np.arange(500) < 60, 1e-3, 1e-5)}
    digest = store.write_artefact(paper.CHAPTER, configs.key(config), "curve", curve)
    store.write_record(paper.CHAPTER, {"key": configs.key(config), "experiment": lrgb.EXPERIMENT.name, "version": lrgb.EXPERIMENT.version,
                                     "config": config, "metrics": {"test_ap": 0.5}, "artefacts": {"curve": digest}})


@pytest.mark.parametrize("best,applies", [(30, True), (80, False)])
def test_the_stopping_rule_reaches_the_other_lrgb_runs_only_once_the_first_full_run_shows_it_safe(best, applies, isolated_store):
    """The first full-length GCN LRGB run decides: if its best validation epoch came before its rate reached the
    minimum (epoch 60 here), every other LRGB-configuration run at 500 epochs stops by the rule; it never does."""
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], gps=False, epochs=0)
    other = configs.config(params, "GCN", "LRGB, 2-layer head", 0)
    assert checks.stopping_check(params) is None and "stop_at_min_lr" not in other
    assert checks.stopping_note(params).startswith("is not yet checked")
    first = configs.config(params, *paper.FIRST_FULL)
    write_first_full(first, best)
    assert checks.stopping_check(params) == {"best epoch": best, "first epoch at the minimum rate": 60, "applies": applies}
    note = checks.stopping_note(params)
    assert note.startswith("applies" if applies else "does not apply") and f"epoch was {best + 1}" in note and "epoch 61" in note
    assert ("stop_at_min_lr" in configs.config(params, "GCN", "LRGB, 2-layer head", 0)) == applies
    assert ("stop_at_min_lr" in configs.config(params, "GCN", "LRGB, linear head", 1)) == applies
    assert configs.key(configs.config(params, *paper.FIRST_FULL)) == configs.key(first)  # the deciding run itself never stops early
    assert "stop_at_min_lr" not in configs.config(params, "GCN", "tuned", 0)
    assert "stop_at_min_lr" not in configs.config({**params, "epochs": 8}, "GCN", "LRGB, 2-layer head", 0)


def test_background_training_plans_each_grid_when_it_starts_so_the_rule_reaches_runs_after_the_first(isolated_store, monkeypatch):
    """``train`` walks the plan in one process: the grids after ``FIRST_FULL``'s own make their configs only when
    they start, so they take the stopping rule that run's record decides (here: best epoch 30, minimum rate at 60)."""
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], gps=False, epochs=0, seeds=2)
    trained: dict[str, list[dict]] = {}

    def fake_grid(chapter, name, grid_configs, device, desc=None):
        trained[desc] = grid_configs
        for c in grid_configs:
            if (c["model"], configs.stage_of(c), c["seed"]) == paper.FIRST_FULL:  # the reference run lands
                write_first_full(c, best=30)

    monkeypatch.setattr(configs, "run_grid", fake_grid)
    plan = configs.training_plan(params)  # made before the reference run is recorded
    for _, step in plan:
        step()
    reference = next(desc for desc in trained if "stopping rule" in desc)
    assert [(c["model"], configs.stage_of(c), c["seed"]) for c in trained[reference]] == [paper.FIRST_FULL]
    gcn = trained["GCN: LRGB, linear head, LRGB, 2-layer head, tuned"]
    later = [c for c in gcn if configs.stage_of(c) != "tuned" and (c["model"], configs.stage_of(c), c["seed"]) != paper.FIRST_FULL]
    assert len(later) == 3 and all("stop_at_min_lr" in c for c in later)
    assert all("stop_at_min_lr" not in c for c in gcn if configs.stage_of(c) == "tuned")  # the tuned ones follow their own schedule


def test_background_training_takes_the_claims_cells_in_issue_30s_order_seed_0_first(monkeypatch):
    params = pages.resolve("lrgb-head", "smoke", models=["GCN", "GINE", "GatedGCN"], seeds=2)
    trained: dict[str, list[tuple[str, int]]] = {}
    monkeypatch.setattr(configs, "run_grid", lambda chapter, name, grid_configs, device, desc=None: trained.setdefault(
        desc, [(configs.stage_of(c), c["seed"]) for c in grid_configs]))
    for _, step in configs.training_plan(params):
        step()
    assert [d for d in trained if d.split(":")[0] in params["models"]] == [
        "GCN: LRGB, linear head, LRGB, 2-layer head, tuned", "GatedGCN: tuned", "GatedGCN: LRGB, linear head, LRGB, 2-layer head",
        "GINE: LRGB, linear head, LRGB, 2-layer head, tuned", "GCN: tuned without RWSE", "GINE: tuned without RWSE",
        "GatedGCN: tuned without RWSE"]
    assert trained["GatedGCN: LRGB, linear head, LRGB, 2-layer head"] == [
        ("LRGB, linear head", 0), ("LRGB, 2-layer head", 0), ("LRGB, linear head", 1), ("LRGB, 2-layer head", 1)]
    assert list(trained)[-1] == "GPS"


def write_runs(params: dict, cells: dict) -> None:
    """Store records of the longer GCN pair under ``params`` (both precisions): test AP per (precision, stage) and seed."""
    for (mixed, stage), aps in cells.items():
        for seed, ap in enumerate(aps):
            c = configs.config({**params, "precision": mixed}, "GCN", stage, seed, epochs=params["long_epochs"])
            store.write_record(paper.CHAPTER, {"key": configs.key(c), "experiment": lrgb.EXPERIMENT.name, "version": lrgb.EXPERIMENT.version,
                                             "config": c, "metrics": {"test_ap": ap}})


@pytest.mark.parametrize("bf16_ap,setting", [(0.400, {"precision": "bfloat16"}), (0.300, {"step": "fast"}), (None, {})])
def test_the_papers_budget_runs_train_in_the_precision_the_fidelity_check_allows(bf16_ap, setting, isolated_store):
    """bf16 (its fast step) once the check passes, fp32 with the fast step once it fails, the profile's own until
    it is decided; the deciding first run stays fp32 with today's step, and the short runs keep the profile's."""
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], gps=False)
    fp32 = {("float32", s): (0.40, 0.41) for s in paper.HEAD_STAGES[:2]}
    write_runs(params, fp32 | ({("bfloat16", s): (bf16_ap, bf16_ap) for s in paper.HEAD_STAGES[:2]} if bf16_ap else {}))
    assert checks.bf16_passes(params) == (None if bf16_ap is None else bf16_ap == 0.400)
    assert checks.paper_setting_note(params).startswith({0.400: "in bf16", 0.300: "in fp32 with the fast", None: "in float32"}[bf16_ap])
    full = configs.full_params(params)
    other = configs.config(full, "GCN", "LRGB, 2-layer head", 1)
    assert {k: other[k] for k in ("precision", "step") if k in other} == setting
    gated, gine = (configs.config({**full, "models": ["GCN", "GINE", "GatedGCN"]}, m, "tuned", 0) for m in ("GatedGCN", "GINE"))
    assert "matmul" not in other and "matmul" not in gine and gated.get("matmul") == ("onednn" if bf16_ap == 0.300 else None)
    assert ("GatedGCN with oneDNN" in checks.paper_setting_note({**params, "models": ["GCN", "GatedGCN"]})) == (bf16_ap == 0.300)
    assert configs.config(full, *paper.FIRST_FULL) == configs.config({**full, "precision": "bfloat16"}, *paper.FIRST_FULL)
    assert "precision" not in configs.config(full, *paper.FIRST_FULL) and "step" not in configs.config(full, *paper.FIRST_FULL)
    assert "precision" not in configs.config(params, "GCN", "LRGB, 2-layer head", 1)  # the profile's 3 epochs


def test_the_budget_table_says_how_far_an_unrecorded_run_had_trained_on_the_snapshots_date():
    params = pages.resolve("lrgb-head", "smoke", models=["GCN"], seeds=2)
    full = configs.full_params(params)
    recorded = hand_made_runs(full, {("GCN", "LRGB, linear head"): (0.6, 0.6)})
    recorded = recorded[recorded.seed == 0]
    training = configs.key(configs.config(full, "GCN", "LRGB, 2-layer head", 1))
    snapshot = {"date": "2026-12-06", "runs": {training: {"epochs": 206, "planned": 500},
                                               recorded.key.iloc[0]: {"epochs": 499, "planned": 500}}}  # recorded since
    table = tables.budget_table(pd.concat([hand_made_runs(params), recorded]), params, snapshot)
    assert table.loc[("GCN", "LRGB, 2-layer head"), "recorded"] == "0/2; training: 206 of 500 epochs on 2026-12-06"
    assert table.loc[("GCN", "LRGB, linear head"), "recorded"] == "1/2"
    assert table.loc[("GCN", "tuned"), "recorded"] == "0/2"
    assert tables.budget_table(pd.concat([hand_made_runs(params), recorded]), params).equals(
        tables.budget_table(pd.concat([hand_made_runs(params), recorded]), params, {"date": None, "runs": {}}))


def test_underway_keeps_the_epochs_and_carries_the_checkpoint_of_each_unrecorded_run():
    from graphrepro import bench, underway

    (experiment, members), = [g for g in bench.probe_groups("lrgb-head", pages.resolve("lrgb-head", "smoke")).values()][:1]
    config = members[0]
    state = lrgb.checkpoint_dir(experiment.key(config)) / "state.pt"
    checkpoints.write_pinned(state, lambda tmp: torch.save({"curve": {"val_ap": [0.2, 0.3]}}, tmp))
    runs = underway.checkpointed("lrgb-head", pages.resolve("lrgb-head", "smoke"))
    assert runs == {experiment.key(config): {**runs[experiment.key(config)], "epochs": 2,
                                             "planned": experiment.planned_epochs(config)[1], "seed": config["seed"]}}
    assert underway.load("lrgb-head") == {"date": None, "runs": {}}
    underway.save("lrgb-head", runs)
    assert underway.load("lrgb-head")["runs"] == runs
    key = experiment.key(config)
    assert underway.carry("lrgb-head", runs) == ([checkpoints.carried(state)], [])
    assert underway.carry("lrgb-head", runs) == ([], [])  # nothing further on since
    store.write_record(paper.CHAPTER, {"key": key, "experiment": experiment.name, "version": experiment.version,
                                       "config": config, "metrics": {"test_ap": 0.3}})
    assert underway.carry("lrgb-head", {}) == ([], [key]) and not checkpoints.carried(state).exists()
    underway.save("lrgb-head", {})
    assert underway.load("lrgb-head") == {"date": None, "runs": {}}


def test_the_underway_command_carries_checkpoints_and_train_says_what_it_resumes(capsys, monkeypatch):
    from graphrepro import bench
    from graphrepro.__main__ import main

    (experiment, members), = [g for g in bench.probe_groups("lrgb-head", pages.resolve("lrgb-head", "smoke")).values()][:1]
    folder = lrgb.checkpoint_dir(experiment.key(members[0]))
    lrgb.save_checkpoint(folder, {"curve": {"val_ap": [0.2, 0.3, 0.4]}})
    assert main(["underway", "lrgb-head", "--profile", "smoke", "--no-carry"]) == 0
    out = capsys.readouterr().out
    assert "3 of" in out and "dataset" not in out and not checkpoints.carried(folder).exists()  # no blank column
    assert main(["underway", "lrgb-head", "--profile", "smoke"]) == 0
    assert "carried 1 checkpoint(s)" in capsys.readouterr().out
    assert sorted(p.name for p in checkpoints.carried(folder).iterdir()) == ["state.epochs", "state.pt", "state.sha256"]
    shutil.rmtree(folder)  # on to another machine: `train` says which runs it resumes, and from where they had got
    monkeypatch.setattr(configs, "training_plan", lambda params: [])
    assert main(["train", "lrgb-head", "--profile", "smoke"]) == 0
    assert f"1 unfinished run(s) resume from their checkpoints (this machine's or carried): {experiment.key(members[0])[:10]} " \
           f"({members[0]['model']} ({members[0]['base']}) seed {members[0]['seed']}) at 3 of" in capsys.readouterr().out


def test_the_step_table_says_which_bf16_targets_are_met_and_where_a_missed_ones_time_goes(isolated_store):
    """A kept bench with one target met and one missed: the missed one names its top operators, in order, and a
    model with no target (GINE) shows none."""
    from graphrepro import bench
    from graphrepro.chapters.lrgb_head.benchmarks import BF16, FAST, ONEDNN, TODAY

    def row(model: str, today: float, bf16: float, target: float | None) -> dict:
        return {"run": f"{model} tuned, 600 graphs, forward and backward (amx)", f"s, {TODAY}": today, f"s, {FAST}": today - 1,
                f"s, {ONEDNN}": today - 2, f"s, {BF16}": bf16, f"speedup, {BF16}": today / bf16, "bf16 target": target or ""}

    profile = [{"run": "GPS tuned, bf16 fast step: where the time goes", "operator": f"aten::{op}", "share of time": share}
               for op, share in (("copy_", 0.25), ("bmm", 0.125), ("mm", 0.1), ("mul", 0.05))]
    rows = [row("GCN", 9.0, 3.0, 3.0), row("GINE", 8.0, 4.0, None), row("GPS", 30.0, 20.0, 2.5), *profile]
    bench.save_chapter_bench(paper.CHAPTER, pd.DataFrame(rows), seeds=1)
    table = tables.step_table()
    assert list(table.target) == ["3× (met)", "–", "2.5× (missed)"] and list(table["bf16 speedup"]) == ["3.00×", "2.00×", "1.50×"]
    assert table.loc["GPS", "where bf16's time goes"] == "copy_ 25%, bmm 12%, mm 10%"
    assert table.loc["GCN", "where bf16's time goes"] == table.loc["GINE", "target"] == "–"
    assert table.loc["GCN", "s, fastest fp32"] == "7.00"


def test_the_step_bench_times_each_way_and_measures_how_far_each_moves_the_gradient(monkeypatch, isolated_store):
    """``bench --chapter lrgb-head``'s step rows, on small molecules: a time and a speedup for every way, and
    gradients within fp32 rounding of the fast step's for oneDNN's products (bf16's further off, where it runs);
    once kept, the page's products table shows them, and a note before."""
    from graphrepro import bench, precision
    from graphrepro.chapters.lrgb_head import benchmarks

    monkeypatch.setattr(lrgb.lrgb_data, "load_peptides_func",
                        lambda progress=False: {k: random_molecules(6, seed=i) for i, k in enumerate(lrgb.lrgb_data.SPLITS)})
    monkeypatch.setattr(benchmarks, "MODELS", ("GatedGCN",))
    rows = [r for r in benchmarks.step_rows(graphs=6) if "forward and backward" in r["run"]]
    assert [r["run"].split(" tuned")[0] for r in rows] == ["GatedGCN", "GPS"]
    for row in rows:
        assert row[f"s, {benchmarks.ONEDNN}"] > 0 and row[f"speedup, {benchmarks.ONEDNN}"] > 0
        assert 0 < row[f"gradient difference, {benchmarks.ONEDNN}"] < 1e-5
        if precision.unavailable(precision.BFLOAT16) is None:
            assert row["gradient difference, bf16, fast step"] > 100 * row[f"gradient difference, {benchmarks.ONEDNN}"]
    assert "not measured yet" in tables.products_table().iloc[0, 0] and "not measured yet" in tables.step_table().iloc[0, 0]
    bench.save_chapter_bench(paper.CHAPTER, pd.DataFrame(rows), seeds=1)
    steps = tables.step_table()
    assert list(steps.index) == ["GatedGCN", "GPS"] and steps.loc["GPS", "s, today's fp32"] == f"{rows[1][f's, {benchmarks.TODAY}']:.2f}"
    fastest = min(rows[0][f"s, {benchmarks.FAST}"], rows[0][f"s, {benchmarks.ONEDNN}"])
    assert steps.loc["GatedGCN", "s, fastest fp32"] == f"{fastest:.2f}"
    table = tables.products_table()
    assert list(table.index) == ["GatedGCN", "GPS"] and table.CPU.nunique() == 1
    assert table.loc["GPS", "ratio"] == f"{rows[1][f's, {benchmarks.FAST}'] / rows[1][f's, {benchmarks.ONEDNN}']:.2f}×"
    assert float(table.loc["GatedGCN", "gradient difference, oneDNN"]) == pytest.approx(rows[0][f"gradient difference, {benchmarks.ONEDNN}"], rel=0.05)
