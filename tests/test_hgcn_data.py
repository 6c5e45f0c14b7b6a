"""HGCN's loaders and splits: fixtures in the upstream formats, and the real mirror files where present."""

from __future__ import annotations

import pickle

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch

from graphrepro.data import DataUnavailable, hgcn
from graphrepro.data.availability import dataset_status


def _write_disease(folder, name, n_feats=7):
    """A 6-node tree in the upstream layout: edges CSV, CSR features .npz, float64 labels .npy."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.edges.csv").write_text("0,1\n0,2\n1,3\n1,4\n2,5\n")
    dense = np.arange(6 * n_feats, dtype=np.float64).reshape(6, n_feats)
    dense[0] = 0.0  # an all-zero row must stay zero under row normalisation
    feats = sp.csr_matrix(dense)
    sp.save_npz(folder / f"{name}.feats.npz", feats)
    np.save(folder / f"{name}.labels.npy", np.array([0, 1, 0, 1, 1, 0], dtype=np.float64))
    return {p.name: p for p in folder.iterdir()}


def test_disease_nc_loader_reads_the_upstream_format(tmp_path):
    files = _write_disease(tmp_path / "disease_nc", "disease_nc", n_feats=1000)
    adj, feats, labels = hgcn.raw_graph("disease_nc", files)
    assert adj.shape == (6, 6) and adj.nnz == 10 and (adj != adj.T).nnz == 0
    assert feats.shape == (6, 1000) and feats[1, 0] == 1000.0
    assert labels.dtype == np.int64 and labels.tolist() == [0, 1, 0, 1, 1, 0]
    data = hgcn.node_classification_data("disease_nc", normalize_feats=True, files=files)
    assert data.x.shape == (6, 1000)
    np.testing.assert_allclose(data.x.sum(1).numpy()[1:], 1.0, rtol=1e-5)  # row-normalised (row 0 is all zero)
    assert data.x[0].abs().sum() == 0


def test_disease_nc_is_unavailable_with_reason_when_features_are_missing():
    if dataset_status("disease_nc")["status"] == "available":
        pytest.skip("disease_nc features are present here")
    with pytest.raises(DataUnavailable, match="disease_nc.feats.npz"):
        hgcn.node_classification_data("disease_nc", normalize_feats=True)


def test_nodes_are_indexed_by_first_appearance(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "x.edges.csv").write_text("7,3\n3,9\n")
    np.save(folder / "x.labels.npy", np.zeros(3))
    adj, feats, _ = hgcn.read_disease(folder / "x.edges.csv", folder / "x.labels.npy", None)
    assert adj.toarray().tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]  # 7 -> 0, 3 -> 1, 9 -> 2
    assert (feats == np.eye(3)).all()  # no feature file: identity features, as --use-feats 0


def test_airport_pickle_fixture(tmp_path):
    graph = nx.Graph()
    for i in range(8):
        graph.add_node(i, feat=[float(i), 1.0, 2.0, 3.0, 0.9 + 0.05 * i])
    graph.add_edges_from([(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (2, 2)])
    path = tmp_path / "airport.p"
    path.write_bytes(pickle.dumps(graph))
    adj, attrs = hgcn.read_airport(path)
    assert adj.shape == (8, 8) and adj[2, 2] == 1 and adj.max() == 1
    labels = hgcn.airport_labels(attrs)
    expected = np.digitize(attrs[:, 4], hgcn.AIRPORT_LABEL_BINS)
    assert (labels == expected - expected.min()).all()
    data = hgcn.node_classification_data("airport", normalize_feats=True, files={"airport.p": path})
    assert data.x.shape == (8, 4 + 6 + 1)  # 4 features, one-hot degree (<= 5), constant
    assert (data.x[:, -1] == 1).all() and (data.x[:, 4:10].sum(1) == 1).all()


def test_link_split_follows_hgcn(tmp_path):
    files = _write_disease(tmp_path / "disease_lp", "disease_lp")
    adj, _, _ = hgcn.raw_graph("disease_lp", files)
    split = hgcn.mask_edges(adj, 0.2, 0.2, seed=1234)
    n_pos = 5
    assert len(split["val_pos"]) == int(n_pos * 0.2) == len(split["val_neg"])
    all_pos = np.concatenate([split["train_pos"], split["val_pos"], split["test_pos"]])
    assert sorted(map(tuple, all_pos)) == sorted(zip(*sp.triu(adj).nonzero()))
    negs = set(map(tuple, split["train_neg_pool"]))
    assert (0, 0) in negs  # self-pairs are candidate negatives
    assert set(map(tuple, split["val_pos"])) <= negs  # held-out positives are training negatives
    again = hgcn.mask_edges(adj, 0.2, 0.2, seed=1234)
    assert all((split[k] == again[k]).all() for k in split)


def test_permutation_equals_original_row_shuffle():
    rows = np.arange(2000).reshape(1000, 2)
    shuffled = rows.copy()
    np.random.RandomState(1234).shuffle(shuffled)
    assert (rows[np.random.RandomState(1234).permutation(1000)] == shuffled).all()


def test_stratified_split_is_disjoint_and_proportional():
    labels = np.repeat([0, 1, 2, 3], [100, 300, 200, 40])
    idx = hgcn.split_nodes_stratified(labels, 0.15, 0.15, seed=0)
    assert not set(idx["train"]) & set(idx["val"]) and not set(idx["val"]) & set(idx["test"])
    assert len(idx["train"]) + len(idx["val"]) + len(idx["test"]) == len(labels)
    assert np.bincount(labels[idx["val"]]).tolist() == [15, 45, 30, 6]


@pytest.fixture(scope="module")
def airport_labels():
    try:
        _, _, labels = hgcn.raw_graph("airport")
    except DataUnavailable as err:
        pytest.skip(str(err))
    return labels


def test_real_airport_split_reproduces_the_leak(airport_labels):
    """The reference notes measured HGCN's airport split with seed 1234: these are its exact sizes."""
    assert np.bincount(airport_labels).tolist() == [521, 1443, 999, 225]
    idx = hgcn.split_nodes_faithful(airport_labels, 0.15, 0.15, seed=1234)
    assert (len(idx["val"]), len(idx["test"]), len(idx["train"])) == (524, 524, 3364)
    train, val, test = set(idx["train"]), set(idx["val"]), set(idx["test"])
    assert (len(val & train), len(test & train), len(val & test)) == (246, 225, 43)


def test_airport_label_column_is_dropped_unless_asked_for(airport_labels):
    plain = hgcn.node_classification_data("airport", normalize_feats=True)
    leaky = hgcn.node_classification_data("airport", normalize_feats=True, label_feature=True)
    assert plain.x.shape == (3188, 4 + 7) and leaky.x.shape == (3188, 5 + 7)  # + degree one-hot (6) and a constant
    _, attrs, _ = hgcn.raw_graph("airport")
    # the extra column is the (row-normalised) attribute the classes are binned from
    column = attrs[:, 4] / attrs.sum(1)
    assert np.allclose(leaky.x[:, 4].numpy(), column, atol=1e-6)
    assert torch.equal(plain.y, leaky.y)


def test_label_feature_only_exists_for_airport_node_classification():
    from graphrepro.experiments import hgcn as experiment

    assert "label_feature" not in experiment.make_config("airport", "nc", "MLP", 0)
    with pytest.raises(ValueError, match="airport node classification only"):
        experiment.make_config("airport", "lp", "MLP", 0, "debugged", label_feature=True)


def test_real_disease_lp_task():
    try:
        data = hgcn.link_prediction_data("disease_lp", normalize_feats=False)
    except DataUnavailable as err:
        pytest.skip(str(err))
    assert data.num_nodes == 2665 and data.x.shape == (2665, 11)
    assert (len(data.val_pos), len(data.test_pos), len(data.train_pos)) == (133, 266, 2265)
    assert data.edge_index.shape[1] == 2 * 2265


def test_hgcn_link_split_isolates_the_held_out_leaves_of_a_tree():
    from graphrepro import pages
    from graphrepro.chapters.hgcn_mlp_bug import tables

    table = tables.isolated_endpoints(pages.resolve("hgcn-mlp-bug", "smoke"))
    assert list(table.index) == ["tree1111", "disease_lp", "airport"]
    tree = table.loc["tree1111"]
    # 1,000 of the 1,111 nodes are leaves: nearly every held-out edge strands one, few random pairs touch one
    assert tree.iloc[0] > 80 and tree.iloc[1] < 40 and tree.iloc[2] > 70
    assert table.loc["airport"].iloc[0] < 20  # a graph with hubs keeps its held-out edges' ends connected
